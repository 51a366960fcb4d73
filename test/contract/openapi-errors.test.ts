import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { startTestServer, type CallOptions, type CallResult, type TestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { startHttpPeer, type HttpPeer } from '../helpers/http-peer.js';
import { jobHold } from '../../src/server/ingest/runner.js';
import { issueToken } from '../../src/server/tokens.js';
import { insertAuditBatch, insertJournalBatch } from '../../src/server/governance/bulk.js';
import { SUMMARY_SCAN_BUDGET } from '../../src/server/governance/search.js';

/**
 * Every error answer the OpenAPI document claims, asked of the real server: for each operation,
 * each status and each `code` it lists, a request that gets exactly that answer. A claim this file
 * cannot provoke fails the test, so the document cannot claim what the server does not do.
 */

interface ErrorResponse {
  headers?: Record<string, { required?: boolean }>;
  content: { 'application/problem+json': { schema: { allOf: [unknown, { properties: { code: Codes } }] } } };
}
type Codes = { const: string } | { enum: string[] };
interface Operation {
  operationId: string;
  'x-mutates'?: boolean;
  responses: Record<string, ErrorResponse | object>;
}
interface Claim {
  op: Operation;
  method: string;
  path: string;
  status: number;
  code: string;
  response: ErrorResponse;
}

const AUDIENCE = 'urn:appliance-admin';
const SSO = {
  audience: AUDIENCE,
  role_claim: 'groups',
  subject_claim: 'sub',
  role_map: { admins: 'it_admin' },
} as const;
const FRONT_DOOR = '/v1/gateway/{workload}';

let s: TestServer; // SSO against a working provider, for a token that maps to no role
let ssoDown: TestServer; // SSO against a provider that answers 503
let throttled: TestServer; // one request that writes the audit trail per caller, and its clock stands still
const peers: HttpPeer[] = [];
let privateKey: CryptoKey;
let roleless: string;
let unverifiable: string;
let gatewayKey: string;
let throttledKey: string;

const signed = (issuer: string, groups: string[]) =>
  new SignJWT({ groups })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setSubject('sso-someone')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(privateKey);

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  privateKey = pair.privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const idp = await startHttpPeer((req, res) => {
    const body = req.url === '/jwks' ? { keys: [jwk] } : { issuer: idp.url, jwks_uri: `${idp.url}/jwks` };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  const down = await startHttpPeer((_req, res) => res.writeHead(503).end());
  peers.push(idp, down);
  s = await startTestServer({ config: (root) => fixtureConfig(root, { sso: { issuer: idp.url, ...SSO } }) });
  ssoDown = await startTestServer({ config: (root) => fixtureConfig(root, { sso: { issuer: down.url, ...SSO } }) });
  throttled = await startTestServer({
    config: (root) => fixtureConfig(root, { rate_limit: { burst: 1, per_second: 0.001 } }),
  });
  roleless = await signed(idp.url, ['staff']);
  unverifiable = await signed(down.url, ['admins']);
  gatewayKey = (await s.call('POST', '/gateway/keys', { body: { name: 'callers' } })).json.secret;
  throttledKey = (
    await s.call('POST', '/gateway/keys', {
      body: { name: 'never', quota: { requests_per_minute: 0, tokens_per_minute: null, tokens_per_day: null } },
    })
  ).json.secret;
});
afterAll(async () => {
  jobHold.until = null;
  await Promise.all([s?.close(), ssoDown?.close(), throttled?.close(), ...peers.map((p) => p.close())]);
});

/** The path with a stand-in for each parameter: the generic errors are given before any lookup. */
const concrete = (path: string) => path.replace(/\{\w+\}/g, 'x');
const call = (server: TestServer, c: Claim, o: CallOptions & { query?: string } = {}) =>
  server.call(c.method, concrete(c.path) + (o.query ?? ''), o);
const TOO_LARGE = JSON.stringify({ name: 'x'.repeat(70 * 1024) });

/** Requests that get an error every route of a kind gives, by `status code`. */
const GENERIC: Record<string, (c: Claim) => Promise<CallResult[]>> = {
  '400 SVC-ADMIN-400': async (c) => [
    c.path === FRONT_DOOR
      ? await s.call('POST', '/v1/gateway/chat', { token: gatewayKey, raw: '{"max_tokens": ' })
      : await call(s, c, { query: '?not_a_parameter=1' }),
  ],
  '401 SVC-ADMIN-401': async (c) => [await call(s, c, { role: null })],
  '403 SVC-ADMIN-403': async (c) => [
    await call(s, c, { token: roleless }),
    ...(c.op['x-mutates'] ? [await call(s, c, { role: 'auditor', body: {} })] : []),
  ],
  '413 SVC-ADMIN-413': async (c) =>
    c.path === FRONT_DOOR
      ? [await s.call('POST', '/v1/gateway/chat', { token: gatewayKey, raw: 'x'.repeat(1024 * 1024 + 1) })]
      : [await call(s, c, { raw: TOO_LARGE })],
  '422 SVC-BOUNDARY-1': async (c) => [await call(s, c, { body: { content: 'a document' } })],
  // the front door: a key's quota; the admin API: the caller's one request that writes the audit trail is
  // spent (by the first route asked, or now), and its bucket never refills
  '429 SVC-ADMIN-429': async (c) => {
    if (c.path === FRONT_DOOR) return [await s.call('POST', '/v1/gateway/chat', { token: throttledKey })];
    if (SEARCHES.has(c.op.operationId)) return [await searchRefused(c)];
    await call(throttled, c);
    const again = await call(throttled, c);
    expect(Number(again.headers['retry-after']), c.path).toBeGreaterThan(0);
    return [again];
  },
  // the front door's 503 is the shutdown's alone, which no request can be timed to meet
  '503 SVC-ADMIN-503': async (c) => (c.path === FRONT_DOOR ? [] : [await call(ssoDown, c, { token: unverifiable })]),
};

const SEARCHES = new Set(['listAudit', 'auditSummary', 'listJournal', 'journalSummary']);

/**
 * A text search past its caller's limits (server/governance/search-allowance.ts): searches sent
 * together until one finds four of the same caller's under way.
 */
async function searchRefused(c: Claim): Promise<CallResult> {
  const token = issueToken(s.server.db, 'auditor', `searcher-${c.op.operationId}`).token;
  for (let round = 0; round < 50; round++) {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(s, c, { token, query: `?q=zq${round}${i}` })),
    );
    const refused = answers.find((a) => a.status === 429);
    if (refused) {
      expect(Number(refused.headers['retry-after']), c.path).toBeGreaterThan(0);
      return refused;
    }
  }
  throw new Error(`no search of ${c.path} was refused in 50 rounds of 8`);
}

/** A summary of a text too common to count: more entries than a count may read (search.ts), all holding it. */
async function tooBroad(c: Claim): Promise<CallResult[]> {
  const db = s.server.db;
  const [table, seed] =
    c.op.operationId === 'auditSummary'
      ? [
          'audit',
          () =>
            insertAuditBatch(
              db,
              Array.from({ length: SUMMARY_SCAN_BUDGET + 1 }, (_, i) => ({
                id: `aud_broad${i}`,
                actor: { subject: 'broad@corp', role: 'it_admin' as const },
                action: 'channel.update',
                target: { type: 'channel', id: null, name: null },
                outcome: 'success' as const,
                status: 200,
                request_id: `req_broad${i}`,
                source_ip: null,
                details: {},
                at_ms: Date.now() - 1000,
              })),
            ),
        ]
      : [
          'journal',
          () =>
            insertJournalBatch(
              db,
              Array.from({ length: SUMMARY_SCAN_BUDGET + 1 }, (_, i) => ({
                id: `jrn_broad${i}`,
                run_id: `run_broad${i}`,
                agent: 'broad-bot',
                channel: 'chan_web',
                step: 0,
                tool: null,
                status: 'succeeded' as const,
                started_ms: Date.now() - 1000,
                ended_ms: Date.now(),
                input_tokens: 1,
                output_tokens: 1,
                error: null,
              })),
            ),
        ];
  seed();
  const q = table === 'audit' ? 'broad@corp' : 'broad-bot';
  return [await s.call('GET', `${concrete(c.path)}?q=${q}`, { role: 'auditor' })];
}

const keyNamed = async (name: string) => (await s.call('POST', '/gateway/keys', { body: { name } })).json.id as string;

const summaryClaim = (operationId: string): Claim =>
  ({
    op: { operationId, responses: {} },
    method: 'GET',
    path: operationId === 'auditSummary' ? '/v1/admin/audit/summary' : '/v1/admin/agent/journal/summary',
  }) as unknown as Claim;

/** Requests that get an error only one route gives, by `operationId status code`. */
const OWN: Record<string, () => Promise<CallResult[]>> = {
  'ingest 404 SVC-ADMIN-404': async () => [
    await s.call('POST', '/connectors', { body: { connector_id: 'conn_nope', source_id: 'src_docs' } }),
    await s.call('POST', '/connectors', { body: { connector_id: 'conn_docs', source_id: 'src_nope' } }),
  ],
  'ingest 409 SVC-ADMIN-409': async () => {
    jobHold.until = new Promise(() => {}); // the first job stays running until the server closes
    const body = { connector_id: 'conn_docs', source_id: 'src_docs' };
    expect((await s.call('POST', '/connectors', { body })).status).toBe(202);
    return [await s.call('POST', '/connectors', { body })];
  },
  'getJob 404 SVC-ADMIN-404': async () => [await s.call('GET', '/jobs/job_nope')],
  'updateChannels 404 SVC-ADMIN-404': async () => [
    await s.call('PUT', '/channels', { body: { channels: [{ id: 'chan_nope', enabled: true }] } }),
  ],
  'createKey 409 SVC-ADMIN-409': async () => [
    await s.call('POST', '/gateway/keys', { body: { name: 'CALLERS' } }),
    await s.call('POST', '/gateway/keys', { body: { name: 'budgeted', budget: { per_day: 1, per_month: null } } }),
  ],
  'revokeKey 404 SVC-ADMIN-404': async () => [await s.call('POST', '/gateway/keys/key_nope/revoke')],
  'setQuota 404 SVC-ADMIN-404': async () => [
    await s.call('PUT', '/gateway/keys/key_nope/quota', {
      body: { requests_per_minute: 1, tokens_per_minute: null, tokens_per_day: null },
    }),
  ],
  'setQuota 409 SVC-ADMIN-409': async () => {
    const id = await keyNamed('soon revoked');
    await s.call('POST', `/gateway/keys/${id}/revoke`);
    return [
      await s.call('PUT', `/gateway/keys/${id}/quota`, {
        body: { requests_per_minute: 1, tokens_per_minute: null, tokens_per_day: null },
      }),
    ];
  },
  'setKeyExpiry 404 SVC-ADMIN-404': async () => [
    await s.call('PUT', '/gateway/keys/key_nope/expiry', { body: { expires_at: null } }),
  ],
  'setKeyExpiry 409 SVC-ADMIN-409': async () => {
    const id = await keyNamed('expiry frozen');
    await s.call('POST', `/gateway/keys/${id}/revoke`);
    return [await s.call('PUT', `/gateway/keys/${id}/expiry`, { body: { expires_at: null } })];
  },
  'rotateKey 404 SVC-ADMIN-404': async () => [await s.call('POST', '/gateway/keys/key_nope/rotate')],
  'rotateKey 409 SVC-ADMIN-409': async () => {
    const id = await keyNamed('rotation refused');
    await s.call('POST', `/gateway/keys/${id}/revoke`);
    return [await s.call('POST', `/gateway/keys/${id}/rotate`)];
  },
  'setKeyBudget 404 SVC-ADMIN-404': async () => [
    await s.call('PUT', '/gateway/keys/key_nope/budget', { body: { per_day: 1, per_month: null } }),
  ],
  // this appliance has no pricing: no currency to count a budget in
  'setKeyBudget 409 SVC-ADMIN-409': async () => {
    const id = await keyNamed('budget without pricing');
    return [await s.call('PUT', `/gateway/keys/${id}/budget`, { body: { per_day: 1, per_month: null } })];
  },
  'usage 404 SVC-ADMIN-404': async () => [await s.call('GET', '/gateway/usage?key_id=key_nope')],
  'activateModel 404 SVC-ADMIN-404': async () => [
    await s.call('POST', '/models/activate', { body: { model_id: 'nope' } }),
  ],
  'activateModel 422 SVC-ADMIN-422': async () => [
    await s.call('POST', '/models/activate', { body: { model_id: 'ghost-70b' } }),
  ],
  'setRouting 404 SVC-ADMIN-404': async () => [
    await s.call('PUT', '/routing/nope', { body: { model_id: null } }),
    await s.call('PUT', '/routing/chat', { body: { model_id: 'nope' } }),
  ],
  'setRouting 422 SVC-ADMIN-422': async () => [
    await s.call('PUT', '/routing/chat', { body: { model_id: 'ghost-70b' } }),
  ],
  'auditSummary 422 SVC-ADMIN-422': () => tooBroad(summaryClaim('auditSummary')),
  'journalSummary 422 SVC-ADMIN-422': () => tooBroad(summaryClaim('journalSummary')),
  'gatewayCall 404 SVC-ADMIN-404': async () => [await s.call('POST', '/v1/gateway/nope', { token: gatewayKey })],
};

/** Every (operation, status, code) the document lists as an error answer. */
async function claims(): Promise<Claim[]> {
  const doc = (await s.call('GET', '/openapi.json', { role: null })).json as {
    paths: Record<string, Record<string, Operation>>;
  };
  const out: Claim[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^[45]\d\d$/.test(status)) continue;
        const codes = (response as ErrorResponse).content['application/problem+json'].schema.allOf[1].properties.code;
        for (const code of 'const' in codes ? [codes.const] : codes.enum)
          out.push({ op, method: method.toUpperCase(), path, status: Number(status), code, response } as Claim);
      }
    }
  }
  return out;
}

describe('the error answers the OpenAPI document lists', () => {
  it('are each given by the real server', async () => {
    const all = await claims();
    expect(all.length).toBeGreaterThan(150);
    const unchecked: string[] = [];
    for (const c of all) {
      const label = `${c.method} ${c.path} ${c.status} ${c.code}`;
      const generic = GENERIC[`${c.status} ${c.code}`];
      const answers = generic
        ? await generic(c)
        : ((await OWN[`${c.op.operationId} ${c.status} ${c.code}`]?.()) ?? null);
      if (answers === null) {
        unchecked.push(label);
        continue;
      }
      for (const res of answers) {
        expect([res.status, res.json?.code], label).toEqual([c.status, c.code]);
        expect(res.headers['content-type'], label).toMatch(/^application\/problem\+json/);
        for (const [name, header] of Object.entries(c.response.headers ?? {}))
          if (header.required) expect(res.headers[name.toLowerCase()], `${label} ${name}`).toBeDefined();
      }
    }
    expect(unchecked, 'claims no request here provokes').toEqual([]);
  });

  it('include everything the specific checks provoke: no check is for a claim the document dropped', async () => {
    const listed = new Set((await claims()).map((c) => `${c.op.operationId} ${c.status} ${c.code}`));
    expect(Object.keys(OWN).filter((k) => !listed.has(k))).toEqual([]);
  });
});
