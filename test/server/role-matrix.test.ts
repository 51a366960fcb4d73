import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, routes, type RouteDef } from '../../src/contract/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { fixtureConfig } from '../helpers/fixtures.js';

let ingestCount = 0;

/** A valid request for every mutation route, built against the fixture config. */
async function sampleRequest(def: RouteDef, s: TestServer, keyId: string): Promise<{ path: string; body?: unknown }> {
  switch (def.name) {
    case 'ingest': {
      // alternate sources so a job still running from the previous case is not a 409
      const [connector_id, source_id] = ingestCount++ % 2 === 0 ? ['conn_docs', 'src_docs'] : ['conn_erp', 'src_erp'];
      return { path: '/connectors', body: { connector_id, source_id } };
    }
    case 'updateChannels':
      return { path: '/channels', body: { channels: [{ id: 'chan_mail', enabled: true }] } };
    case 'createKey':
      return { path: '/gateway/keys', body: { name: `matrix-${Math.random().toString(36).slice(2, 8)}` } };
    case 'revokeKey': {
      // each revoke gets a key of its own, so the quota sample's key stays active
      const created = await s.call('POST', '/gateway/keys', {
        body: { name: `to-revoke-${Math.random().toString(36).slice(2, 8)}` },
      });
      return { path: `/gateway/keys/${created.json?.id ?? 'key_missing'}/revoke` };
    }
    case 'setQuota':
      return {
        path: `/gateway/keys/${keyId}/quota`,
        body: { requests_per_minute: 10, tokens_per_minute: null, tokens_per_day: 1000 },
      };
    case 'setKeyExpiry':
      return { path: `/gateway/keys/${keyId}/expiry`, body: { expires_at: '2099-01-01T00:00:00Z' } };
    case 'rotateKey':
      return { path: `/gateway/keys/${keyId}/rotate`, body: { grace_seconds: 60 } };
    case 'setKeyBudget':
      return { path: `/gateway/keys/${keyId}/budget`, body: { per_day: 5, per_month: null } };
    case 'activateModel':
      return { path: '/models/activate', body: { model_id: 'mistral-7b' } };
    case 'setRouting':
      return { path: '/routing/chat', body: { model_id: 'mistral-7b' } };
    case 'setBudgets':
      return {
        path: '/agent/budgets',
        body: {
          defaults: { tokens_per_run: 1, tool_calls_per_run: 2, seconds_per_run: 3, tokens_per_day: null },
          agents: {},
        },
      };
    case 'identityTest':
      return { path: '/identity/test', body: { provider: 'oidc', issuer_url: `${s.url}/no-such-issuer` } };
    default:
      throw new Error(`no sample for mutation ${def.name}`);
  }
}

const DOMAIN_TABLES = ['jobs', 'channels', 'gateway_keys', 'routing', 'app_state', 'connector_state', 'usage_minutes'];
/** Ingestion jobs started by earlier cases finish in the background; wait so they don't look like a change. */
async function jobsIdle(s: TestServer) {
  const busy = s.server.db.prepare("SELECT count(*) FROM jobs WHERE state IN ('queued','running')").pluck();
  await until('the ingestion jobs to end', () => busy.get() === 0, 5000);
}
const dump = (s: TestServer) =>
  Object.fromEntries(DOMAIN_TABLES.map((t) => [t, s.server.db.prepare(`SELECT * FROM ${t} ORDER BY 1`).all()]));

let s: TestServer;
let keyId: string;
beforeAll(async () => {
  // priced, so that a budget can be set
  s = await startTestServer({
    config: (root) =>
      fixtureConfig(root, {
        pricing: { currency: 'EUR', models: { 'llama-3.1-8b': { input_per_million: 3, output_per_million: 15 } } },
      }),
  });
  const created = await s.call('POST', '/gateway/keys', { body: { name: 'matrix-target' } });
  keyId = created.json?.id ?? 'key_missing';
});
afterAll(async () => {
  await s.close();
});

const mutations = (Object.values(routes) as RouteDef[]).filter((d) => d.mutates);

describe('role matrix: every mutation by every role', () => {
  it('covers every mutation route of the contract', () => {
    expect(mutations.map((d) => d.name).sort()).toEqual(
      [
        'activateModel',
        'createKey',
        'identityTest',
        'ingest',
        'revokeKey',
        'setBudgets',
        'setQuota',
        'setKeyExpiry',
        'rotateKey',
        'setKeyBudget',
        'setRouting',
        'updateChannels',
      ].sort(),
    );
  });

  for (const def of mutations) {
    it(`${def.method} ${def.path}: auditor gets 403 SVC-ADMIN-403, nothing changes, the attempt is audited`, async () => {
      const req = await sampleRequest(def, s, keyId);
      await jobsIdle(s);
      const before = dump(s);
      const res = await s.call(def.method, req.path, { role: 'auditor', body: req.body });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ status: 403, code: 'SVC-ADMIN-403' });
      expect(dump(s)).toEqual(before);
      const audit = s.server.db
        .prepare('SELECT actor_subject, actor_role, action, outcome, status FROM audit WHERE request_id = ?')
        .get(res.json.request_id);
      expect(audit).toEqual({
        actor_subject: 'aude-auditor',
        actor_role: 'auditor',
        action: def.action,
        outcome: 'denied',
        status: 403,
      });
    });
  }

  for (const role of ['it_admin', 'app_owner'] as const) {
    for (const def of mutations) {
      it(`${def.method} ${def.path}: ${role} is allowed and the change is audited as success`, async () => {
        const req = await sampleRequest(def, s, keyId);
        const res = await s.call(def.method, req.path, { role, body: req.body });
        expect(res.status, res.text).toBe(def.status);
        const audit = s.server.db
          .prepare('SELECT actor_role, action, outcome FROM audit WHERE request_id = ?')
          .get(res.headers['x-request-id']);
        expect(audit).toEqual({ actor_role: role, action: def.action, outcome: 'success' });
      });
    }
  }
});

describe('metadata boundary', () => {
  for (const def of mutations.filter((d) => d.body)) {
    it(`${def.method} ${def.path}: a content-bearing field is 422 SVC-BOUNDARY-1 and nothing is stored`, async () => {
      const req = await sampleRequest(def, s, keyId);
      await jobsIdle(s);
      const before = dump(s);
      const res = await s.call(def.method, req.path, {
        body: { ...(req.body as object), prompt: 'summarise the Q3 board minutes' },
      });
      expect(res.status).toBe(422);
      expect(res.json.code).toBe('SVC-BOUNDARY-1');
      expect(res.json.invalid_params?.[0]?.name).toBe('prompt');
      expect(dump(s)).toEqual(before);
    });
  }

  it('refuses any string longer than 1 KiB, even in a known field', async () => {
    const res = await s.call('POST', '/gateway/keys', { body: { name: 'x'.repeat(1025) } });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('SVC-BOUNDARY-1');
  });
});

describe('every contract route is served', () => {
  for (const def of Object.values(routes) as RouteDef[]) {
    it(`${def.method} ${API_PREFIX}${def.path} is implemented`, async () => {
      const path = def.path.replace(':id', keyId).replace(':job_id', 'job_unknown').replace(':workload', 'chat');
      const res = await s.call(def.method, path, { role: 'auditor', body: def.body ? {} : undefined });
      expect(res.status).not.toBe(503);
      expect(res.status).toBeLessThan(500);
    });
  }
});
