import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { Client } from 'undici';
import { routes, type RouteDef } from '../../src/contract/index.js';
import { issueToken, revokeToken } from '../../src/server/tokens.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { badRequests, pct, type BadRequest, type Credentials, type FuzzRoute } from '../helpers/bad-requests.js';

/**
 * Issue 5, point 3: generated hostile bodies, path parameters, queries and headers for every
 * mutation route give a 4xx problem+json, never a 5xx, and leave the domain tables as they were.
 * The audit trail may gain 'failed'/'denied' entries (every authenticated attempt is audited),
 * never a 'success'.
 */
const RUNS = 500;
const DOMAIN_TABLES = ['jobs', 'channels', 'gateway_keys', 'routing', 'app_state', 'connector_state', 'usage_minutes'];
const PRESENT_MODELS = ['llama-3.1-8b', 'mistral-7b'];
const WORKLOADS = ['chat', 'summarize', 'embed'];

let s: TestServer;
let client: Client;
let keyId: string;
let cred: Credentials;
let baseline: string;
let successes: number;

const dump = () => JSON.stringify(DOMAIN_TABLES.map((t) => s.server.db.prepare(`SELECT * FROM ${t} ORDER BY 1`).all()));
const successCount = () =>
  s.server.db.prepare("SELECT count(*) FROM audit WHERE outcome = 'success'").pluck().get() as number;

beforeAll(async () => {
  s = await startTestServer();
  const created = await s.call('POST', '/gateway/keys', {
    body: { name: 'fuzz-target', quota: { requests_per_minute: 5 } },
  });
  expect(created.status).toBe(201);
  keyId = created.json.id;
  const revoked = issueToken(s.server.db, 'it_admin', 'revoked-admin').token;
  revokeToken(s.server.db, 'revoked-admin');
  const expired = issueToken(s.server.db, 'it_admin', 'expired-admin', -60_000).token;
  cred = { token: s.tokens.it_admin, auditor: s.tokens.auditor, revoked, expired };
  client = new Client(s.url, { keepAliveTimeout: 30_000 });
  baseline = dump();
  successes = successCount();
});
afterAll(async () => {
  await client?.close();
  await s?.close();
});

const valid = <T>(def: RouteDef, body: unknown, also: (b: T) => boolean = () => true) => {
  const r = def.body!.safeParse(body);
  return r.success && also(r.data as T);
};
const isEmptyBody = (b: unknown) =>
  b === undefined || b === null || (typeof b === 'object' && !Array.isArray(b) && Object.keys(b).length === 0);

/** Each mutation route against the fixture config: a valid request and what the server would carry out. */
function fuzzRoute(def: RouteDef): FuzzRoute {
  const base = { method: def.method as 'POST' | 'PUT', params: {}, validParamValues: {}, path: () => def.path };
  switch (def.name) {
    case 'ingest':
      return {
        ...base,
        body: { connector_id: 'conn_docs', source_id: 'src_docs' },
        accepts: (b) =>
          valid<{ connector_id: string; source_id: string }>(def, b, (x) =>
            s.config.connectors.some(
              (c) => c.enabled && c.id === x.connector_id && c.sources.some((src) => src.id === x.source_id),
            ),
          ),
      };
    case 'updateChannels':
      return {
        ...base,
        body: { channels: [{ id: 'chan_mail', enabled: true }] },
        accepts: (b) =>
          valid<{ channels: { id: string }[] }>(
            def,
            b,
            (x) =>
              new Set(x.channels.map((c) => c.id)).size === x.channels.length &&
              x.channels.every((c) => s.config.channels.some((k) => k.id === c.id)),
          ),
      };
    case 'createKey':
      return {
        ...base,
        body: { name: 'fuzz-valid', quota: { requests_per_minute: 60 } },
        accepts: (b) => valid(def, b),
      };
    case 'revokeKey':
      return {
        ...base,
        path: (p) => `/gateway/keys/${p.id}/revoke`,
        params: { id: keyId },
        validParamValues: { id: [keyId] },
        body: undefined,
        accepts: isEmptyBody,
      };
    case 'setQuota':
      return {
        ...base,
        path: (p) => `/gateway/keys/${p.id}/quota`,
        params: { id: keyId },
        validParamValues: { id: [keyId] },
        body: { requests_per_minute: 10, tokens_per_minute: null, tokens_per_day: 1000 },
        accepts: (b) => valid(def, b),
      };
    case 'setKeyExpiry':
      return {
        ...base,
        path: (p) => `/gateway/keys/${p.id}/expiry`,
        params: { id: keyId },
        validParamValues: { id: [keyId] },
        body: { expires_at: '2099-01-01T00:00:00Z' },
        // the schema takes any RFC 3339 time; the server also wants it in the future
        accepts: (b) =>
          valid<{ expires_at: string | null }>(
            def,
            b,
            (x) => x.expires_at === null || Date.parse(x.expires_at) > Date.now(),
          ),
      };
    case 'setKeyBudget':
      return {
        ...base,
        path: (p) => `/gateway/keys/${p.id}/budget`,
        params: { id: keyId },
        validParamValues: { id: [keyId] },
        body: { per_day: 5, per_month: 100, warn_percent: 80 },
        accepts: (b) => valid(def, b),
      };
    case 'rotateKey':
      return {
        ...base,
        path: (p) => `/gateway/keys/${p.id}/rotate`,
        params: { id: keyId },
        validParamValues: { id: [keyId] },
        body: { grace_seconds: 60 },
        // the body is optional: none, null or {} rotate with the default grace
        accepts: (b) => isEmptyBody(b) || valid(def, b),
      };
    case 'activateModel':
      return {
        ...base,
        body: { model_id: 'mistral-7b' },
        accepts: (b) => valid<{ model_id: string }>(def, b, (x) => PRESENT_MODELS.includes(x.model_id)),
      };
    case 'setRouting':
      return {
        ...base,
        path: (p) => `/routing/${p.workload}`,
        params: { workload: 'chat' },
        validParamValues: { workload: WORKLOADS },
        body: { model_id: 'mistral-7b' },
        accepts: (b) =>
          valid<{ model_id: string | null }>(def, b, (x) => x.model_id === null || PRESENT_MODELS.includes(x.model_id)),
      };
    case 'setBudgets':
      return {
        ...base,
        body: {
          defaults: { tokens_per_run: 1, tool_calls_per_run: 2, seconds_per_run: 3, tokens_per_day: null },
          agents: { 'triage-bot': { tokens_per_run: 5 } },
        },
        accepts: (b) => valid(def, b),
      };
    case 'identityTest':
      // never reached: a valid identity test would call out (to the discard port)
      return {
        ...base,
        body: { provider: 'oidc', issuer_url: 'http://127.0.0.1:9/fuzz' },
        accepts: (b) => valid(def, b),
      };
    default:
      throw new Error(`no fuzz model for mutation ${def.name}; add one`);
  }
}

async function send(def: RouteDef, req: BadRequest) {
  const body =
    req.body && req.chunked ? Readable.from([req.body.subarray(0, 1000), req.body.subarray(1000)]) : req.body;
  const res = await client.request({ method: def.method, path: `/v1/admin${req.path}`, headers: req.headers, body });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    type: String(res.headers['content-type'] ?? ''),
    requestId: res.headers['x-request-id'],
    text,
  };
}

/** The property every hostile request must keep. */
async function refusedCleanly(def: RouteDef, req: BadRequest): Promise<void> {
  const res = await send(def, req);
  const where = `${req.kind}: ${res.status} ${res.text.slice(0, 200)}`;
  expect(res.status, where).toBeGreaterThanOrEqual(400);
  expect(res.status, where).toBeLessThan(500);
  if (req.expectStatus) expect(res.status, where).toBe(req.expectStatus);
  expect(res.type, where).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(res.text);
  expect(problem.status, where).toBe(res.status);
  expect(problem.code, where).toMatch(/^SVC-/);
  if (req.expectCode) expect(problem.code, where).toBe(req.expectCode);
  expect(dump(), where).toBe(baseline);
  expect(successCount(), where).toBe(successes);
  if (typeof res.requestId === 'string') {
    const audit = s.server.db.prepare('SELECT outcome, status FROM audit WHERE request_id = ?').all(res.requestId) as {
      outcome: string;
      status: number;
    }[];
    for (const a of audit)
      expect(a, where).toEqual({ outcome: expect.stringMatching(/^(failed|denied)$/), status: res.status });
  }
  expect(Object.keys(Object.prototype), `${where}: Object.prototype polluted`).toEqual([]);
  expect(({} as Record<string, unknown>).polluted, where).toBeUndefined();
}

const mutations = (Object.values(routes) as RouteDef[]).filter((d) => d.mutates);

describe('hostile input to every mutation route', () => {
  it('has a fuzz model for every mutation route of the contract', () => {
    for (const def of mutations) expect(() => fuzzRoute(def)).not.toThrow();
  });

  for (const def of mutations) {
    it(`${def.method} ${def.path}: ${RUNS} generated bad requests give 4xx problem+json and change nothing`, async () => {
      const route = fuzzRoute(def);
      await fc.assert(
        fc.asyncProperty(badRequests(route, cred), (req) => refusedCleanly(def, req)),
        { numRuns: RUNS },
      );
    }, 60_000);
  }
});

describe('hostile input that fuzzing found accepted', () => {
  const createKey = routes.createKey as RouteDef;
  const req = (kind: string, path: string, body: string | Buffer, extra: Partial<BadRequest> = {}): BadRequest => ({
    kind,
    path,
    headers: { authorization: `Bearer ${cred.token}`, 'content-type': 'application/json' },
    body: Buffer.isBuffer(body) ? body : Buffer.from(body),
    otherwiseValid: true,
    ...extra,
  });

  it('refuses invalid UTF-8 instead of storing U+FFFD', async () => {
    await refusedCleanly(
      createKey,
      req(
        '0xff in a name',
        '/gateway/keys',
        Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff]), Buffer.from('"}')]),
        { expectStatus: 400 },
      ),
    );
  });

  it('refuses a lone surrogate escape, which SQLite would store mangled', async () => {
    await refusedCleanly(
      createKey,
      req('\\ud800 in a name', '/gateway/keys', '{"name":"a\\ud800"}', { expectStatus: 400 }),
    );
  });

  it('refuses __proto__ members, even where a record would silently drop them', async () => {
    const budgets =
      '{"defaults":{"tokens_per_run":1,"tool_calls_per_run":1,"seconds_per_run":1,"tokens_per_day":1},"agents":{"__proto__":{"x":{}}}}';
    await refusedCleanly(
      routes.setBudgets as RouteDef,
      req('__proto__ agent', '/agent/budgets', budgets, { expectStatus: 400 }),
    );
  });

  it('takes an array body to a route without a body as a body, not as none', async () => {
    await refusedCleanly(
      routes.revokeKey as RouteDef,
      req('[] to revoke', `/gateway/keys/${keyId}/revoke`, '[]', { expectStatus: 400 }),
    );
  });

  it('answers router and HTTP parser errors as problem+json', async () => {
    await refusedCleanly(
      routes.revokeKey as RouteDef,
      req('bad escape', '/gateway/keys/%zz/revoke', '', { expectStatus: 400 }),
    );
    await refusedCleanly(
      routes.revokeKey as RouteDef,
      req('long id', `/gateway/keys/${'k'.repeat(101)}/revoke`, '', { expectStatus: 400 }),
    );
    await refusedCleanly(
      routes.revokeKey as RouteDef,
      req('bad UTF-8 escape', `/gateway/keys/${pct('ab')}%ed%a0%80/revoke`, '', { expectStatus: 400 }),
    );
    await refusedCleanly(
      createKey,
      req('huge header', '/gateway/keys', '{"name":"x"}', {
        headers: {
          authorization: `Bearer ${cred.token}`,
          'content-type': 'application/json',
          'x-padding': 'p'.repeat(20_000),
        },
        expectStatus: 431,
      }),
    );
  });
});
