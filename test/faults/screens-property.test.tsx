import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildPath } from '../../src/client/route-path.js';
import { routes, type RouteDef } from '../../src/contract/routes.js';
import { queryAt, resourceKey } from '../../src/dashboard/state/resources.js';
import { screenState } from '../../src/dashboard/state/ui.js';
import { screens } from '../../screens/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';
import { startHostile, type HostileServer } from '../helpers/hostile-server.js';
import { EMPTY_SCREEN_STATE } from '../../src/dashboard/kit/screen-state.js';

/**
 * Issue 5, point 1 (property): every screen, drawn with arbitrary JSON in place of each answer
 * it polls (served over HTTP, so the client's reading is part of it), never throws: no crash,
 * no screen that fails to draw, and the shell keeps taking keys.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 30);
const COLUMNS = 100;
const ROWS = 30;
const SESSION = {
  subject: 'prop-admin',
  role: 'it_admin',
  capabilities: Object.values(routes).flatMap((r) => ('action' in r && r.action ? [r.action] : [])),
  expires_at: null,
};

let s: TestServer;
let h: HostileServer;
/** API path -> what the hostile server answers now */
const answers = new Map<string, unknown>();
/** API path -> what the real server answered (the shape the mutations start from) */
const samples = new Map<string, unknown>();

const apiPath = (route: string) => (routes[route as keyof typeof routes] as RouteDef).path;

beforeAll(async () => {
  s = await startTestServer();
  await s.call('POST', '/gateway/keys', { body: { name: 'sample-key' } });
  await s.call('PUT', '/agent/budgets', {
    body: {
      defaults: { tokens_per_run: 1, tool_calls_per_run: 2, seconds_per_run: 3, tokens_per_day: null },
      agents: { 'sales-copilot': { tokens_per_run: 5 } },
    },
  });
  for (const screen of screens) {
    for (const r of screen.resources(EMPTY_SCREEN_STATE)) {
      const def = routes[r.route] as RouteDef;
      const res = await s.call('GET', buildPath(def, '', r.params, queryAt(r)));
      expect(res.status, `${r.route} sample`).toBe(200);
      samples.set(def.path, res.json);
    }
  }
  h = await startHostile();
  h.set('*', (req, res) => {
    const path = (req.url ?? '').replace(/^\/v1\/admin/, '').split('?')[0];
    const value = answers.get(path) ?? (path === '/session' ? SESSION : undefined);
    if (value === undefined) {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      return void res.end('{"title":"Not Found","status":404,"code":"SVC-ADMIN-404"}');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  });
});
afterAll(async () => {
  await h?.close();
  await s?.close();
});

// ---- arbitrary answers -------------------------------------------------------------------

/** An object whose own key is "__proto__" (a literal would set the prototype instead). */
const protoKeyed = (v: unknown) => JSON.parse(`{"__proto__": ${JSON.stringify(v) ?? 'null'}, "constructor": 1}`);
const deep = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n));

/** What a wrong server puts where a value belongs. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e308, -1e308, 2 ** 64, Number.MAX_SAFE_INTEGER + 2, -1, 0, 0.5),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', 'x'.repeat(50_000), '2026-13-45T99:99:99Z', 'NaN', 'null', '[]', '{}'),
  fc.constantFrom([], {}, [null], [[]], { data: null }, { data: 'x' }, deep(120), new Array(150_000).fill(0)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => protoKeyed(v)),
  fc.jsonValue({ maxDepth: 4 }),
);

/** Every place in a JSON value: [] is the root, ['data', 0, 'name'] a leaf. */
function placesOf(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => placesOf(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) placesOf(x, [...at, k], out);
  return out;
}

type Mutation = { kind: 'set' | 'delete' | 'dup'; place: number; value: unknown };

/** The sample with the right keys holding wrong things: replaced, removed, or a list flooded. */
function mutate(sample: unknown, mutations: Mutation[]): unknown {
  let root = structuredClone(sample);
  for (const m of mutations) {
    const places = placesOf(root);
    const place = places[m.place % places.length];
    if (place.length === 0) {
      if (m.kind === 'set') root = structuredClone(m.value);
      continue;
    }
    const parent = place.slice(0, -1).reduce((o: any, k) => o[k], root as any);
    const key = place[place.length - 1];
    if (m.kind === 'set') parent[key] = structuredClone(m.value);
    else if (m.kind === 'delete' && Array.isArray(parent)) parent.splice(Number(key), 1);
    else if (m.kind === 'delete') delete parent[key];
    else if (Array.isArray(parent))
      parent.push(...Array.from({ length: 300 }, () => structuredClone(parent[Number(key)])));
  }
  return root;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('set', 'set', 'set', 'delete', 'dup'),
  place: fc.nat(),
  value: junk,
});

const answerFor = (path: string): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) },
    {
      weight: 4,
      arbitrary: fc.array(mutation, { minLength: 1, maxLength: 6 }).map((ms) => mutate(samples.get(path), ms)),
    },
  );

// ---- the property ---------------------------------------------------------------------------

/** The screen's resources as the poller keys them, and their API paths. */
function polled(d: DashboardHarness, name: string) {
  const screen = d.deps.screens.find((x) => x.name === name)!;
  const reqs = screen.resources(screenState(d.deps.ui.getState(), name));
  return { keys: reqs.map(resourceKey), paths: [...new Set(reqs.map((r) => apiPath(r.route)))] };
}

/** Polls now and resolves when every resource of the screen has a new result and it is drawn. */
async function refreshAndDraw(d: DashboardHarness, name: string) {
  const { keys } = polled(d, name);
  const before = keys.map((k) => d.deps.resources.getState().entries[k]);
  const frames = d.frameCount();
  d.deps.poller.refreshNow();
  await d.waitFor(
    () => keys.every((k, i) => d.deps.resources.getState().entries[k] !== before[i]),
    'fresh results',
    // generous: an answer of 150,000 wrong items takes seconds to check on a busy machine
    20_000,
  );
  // Ink's legacy root renders synchronously on each store change: the frame is already drawn
  expect(d.frameCount()).toBeGreaterThan(frames);
}

function expectSound(d: DashboardHarness, name: string, what: string) {
  const f = d.frame();
  expect(d.crashed(), `${what}: the app exited`).toBeNull();
  // the header always keeps the appliance's host:port (the program name gives way first)
  expect(f, `${what}: the header`).toContain(new URL(h.url).host);
  expect(f, `${what}: the screen tab`).toContain(`[${name}]`);
  expect(f, `${what}: a screen failed to draw`).not.toContain('failed to draw');
  expect(f, `${what}: the client could not read valid JSON`).not.toContain('could not be read');
}

/** The property on one screen: `runs` pins a seed (a counterexample kept as a regression case). */
async function screenProperty(screen: (typeof screens)[number], runs: { seed?: number; numRuns?: number } = {}) {
  const d = renderDashboard({
    url: h.url,
    token: 't',
    screen: screen.name,
    refreshMs: 60_000,
    timeoutMs: 3000,
    columns: COLUMNS,
    rows: ROWS,
  });
  try {
    const { keys, paths } = polled(d, screen.name);
    for (const p of paths) answers.set(p, samples.get(p));
    // every first answer in (the samples) before any is replaced: else a poll still under way
    // reads the first arbitrary answers, and which of them it reads depends on timing
    await d.waitFor(
      (f) =>
        f.includes(`[${screen.name}]`) &&
        !f.includes('Loading…') &&
        keys.every((k) => d.deps.resources.getState().entries[k]?.fetchedAt != null),
      'first load',
      8000,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(...paths.map(answerFor)),
        fc.constantFrom('G', 'j', 'pgdn', 'end'),
        async (values, move) => {
          paths.forEach((p, i) => answers.set(p, values[i]));
          await refreshAndDraw(d, screen.name);
          expectSound(d, screen.name, 'drawn');
          // keys: move, the detail of what is selected (or the screen a linked row opens), back
          await d.press(move, 'enter');
          const left = (f: string) => Boolean(screen.open) && !f.includes(`[${screen.name}]`);
          const f = await d.waitFor(
            (x) => x.includes('Detail:') || x.includes('nothing to show in detail yet') || left(x),
            'detail, a note or the linked screen',
          );
          if (left(f)) {
            expect(d.crashed(), 'the linked screen').toBeNull();
            await d.press(':');
            await d.type(screen.name);
            await d.press('enter');
            await d.waitFor((x) => x.includes(`[${screen.name}]`), 'back from the linked screen');
            return;
          }
          expectSound(d, screen.name, 'detail');
          await d.press('esc');
          await d.waitFor((x) => !x.includes('Detail:'), 'back from detail');
        },
      ),
      { numRuns: RUNS, endOnFailure: true, ...runs },
    );
    // and the shell still answers a key it owns
    await d.press('?');
    await d.waitForText('Help · Esc or ? to close');
  } finally {
    await d.unmount();
  }
}

describe('every screen with arbitrary JSON in place of every answer', () => {
  const overview = screens.find((x) => x.name === 'overview')!;
  // the action log asks the appliance nothing: no answer to replace (test/screens/log.test.tsx)
  for (const screen of screens.filter((x) => !x.list?.fromActionLog)) {
    it(`${screen.name}: never throws, keys still work`, () => screenProperty(screen), 120_000);
  }

  // seed 2074324452 (its 14th run): a checkpoint list serving 150,000 public keys without a PEM (10,000 once cut) made
  // every frame of the overview parse them all (5 s a frame): answers ran past their deadline, keys waited
  it(
    'overview: the counterexample of seed 2074324452',
    () => screenProperty(overview, { seed: 2074324452, numRuns: 15 }),
    120_000,
  );

  it('the header: arbitrary JSON for GET /session', async () => {
    const d = renderDashboard({
      url: h.url,
      token: 't',
      screen: 'channels',
      refreshMs: 60_000,
      timeoutMs: 3000,
      columns: COLUMNS,
      rows: ROWS,
    });
    answers.set('/channels', samples.get('/channels'));
    try {
      await d.waitForText('prop-admin');
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }),
            fc.array(mutation, { minLength: 1, maxLength: 4 }).map((ms) => mutate(SESSION, ms)),
          ),
          async (session) => {
            answers.set('/session', session);
            d.deps.session.setState({ resolved: false, authError: null });
            d.deps.poller.refreshNow();
            await d.waitFor(() => d.deps.session.getState().resolved, 'the session read again', 5000);
            expectSound(d, 'channels', 'header');
            await d.press('?');
            await d.waitForText('Help · Esc or ? to close');
            await d.press('esc');
            await d.waitFor((f) => !f.includes('Help · Esc'), 'help closed');
          },
        ),
        { numRuns: RUNS, endOnFailure: true },
      );
    } finally {
      answers.delete('/session');
      await d.unmount();
    }
  }, 60_000);
});
