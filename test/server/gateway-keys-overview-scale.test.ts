import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { fetchedEntries, fetchScreen } from '../../src/cli/screen-fetch.js';
import { createGatewayKey, listGatewayKeys, revokeGatewayKey } from '../../src/server/gateway/keys.js';
import { epochMinute, recordUsage } from '../../src/server/gateway/metering.js';
import type { TriageLine } from '../../src/dashboard/triage/line.js';
import { overviewScreen } from '../../screens/overview.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertGatewayKeys, numberedKeys, recordEuros } from '../helpers/seed-gateway-keys.js';

/**
 * The overview at more keys than a page (issue 41 §6): a key older than the newest 500 that is
 * refused, near its quota or near its money budget is still named and judged, from the usage
 * answers (which carry each key's name, status and quota) and the list's has_budget filter, not
 * from the newest page of every key. Small data: test/bench/server-gateway-scale measures a million.
 */
const DAY = 86_400_000;
const NOW = Date.now();
/** newer keys than the old ones, more than the page the overview read before */
const NEWER_KEYS = 600;
let s: TestServer;
const old: Record<'rejected' | 'nearQuota' | 'nearBudget' | 'calmBudget' | 'revokedBudget', string> = {
  rejected: '',
  nearQuota: '',
  nearBudget: '',
  calmBudget: '',
  revokedBudget: '',
};

beforeAll(async () => {
  s = await startTestServer({
    config: (root) =>
      fixtureConfig(root, {
        pricing: { currency: 'EUR', models: { 'llama-3.1-8b': { input_per_million: 3, output_per_million: 15 } } },
      }),
  });
  const db = s.server.db;
  const minute = epochMinute(NOW);
  db.transaction(() => {
    const make = (name: string, extra: Partial<Parameters<typeof createGatewayKey>[1]> = {}) =>
      createGatewayKey(db, { name, created_by: 'test', created_at_ms: NOW - 400 * DAY, ...extra }).key.id;
    old.rejected = make('old-rejected');
    old.nearQuota = make('old-near-quota', { quota: { tokens_per_day: 1000 } });
    old.nearBudget = make('old-near-budget', { budget: { per_day: 1, per_month: null } });
    old.calmBudget = make('old-calm-budget', { budget: { per_day: 20, per_month: null } });
    old.revokedBudget = make('old-revoked-budget', { budget: { per_day: 1, per_month: null } });
    revokeGatewayKey(db, old.revokedBudget, NOW - DAY);
    const created = new Date(NOW - DAY).toISOString();
    insertGatewayKeys(
      db,
      numberedKeys('new', NEWER_KEYS, (i) => ({ name: `new-${i}`, created_at: created })),
    );
    recordUsage(db, old.rejected, minute, { rejected_by: { requests_per_minute: 5 } });
    recordUsage(db, old.nearQuota, minute, { requests: 3, input_tokens: 900, output_tokens: 50 });
    recordEuros(db, old.nearBudget, minute, 0.9);
    recordEuros(db, old.calmBudget, minute, 2);
    recordEuros(db, old.revokedBudget, minute, 0.95);
  })();
});
afterAll(async () => {
  await s?.close();
});

/** The overview's lines as the dashboard draws them, from the resources it polls. */
async function board(): Promise<Map<string, TriageLine>> {
  const client = new ApiClient({ url: s.url, token: s.tokens.it_admin });
  try {
    const fetched = await fetchScreen(client, overviewScreen);
    for (const f of fetched) expect(f.error, f.request.id).toBeUndefined();
    const lines = overviewScreen.list!.rowsFrom!(fetchedEntries(fetched), {}) as TriageLine[];
    return new Map(lines.map((l) => [l.key, l]));
  } finally {
    await client.close();
  }
}

describe('the overview with more keys than a page', () => {
  it('the old keys are not in the newest page of every key', async () => {
    const res = await s.call('GET', '/gateway/keys?limit=500');
    expect(res.status, res.text).toBe(200);
    const ids = (res.json as { data: { id: string }[] }).data.map((k) => k.id);
    expect(ids).toHaveLength(500);
    for (const id of Object.values(old)) expect(ids).not.toContain(id);
  });

  it('names an old refused key, and judges an old key near its quota and one near its budget', async () => {
    const lines = await board();
    expect(lines.get(`key-rejections:${old.rejected}`)).toMatchObject({
      what: 'Key old-rejected',
      reason: '5 calls rejected in the last hour: 5 requests/minute quota',
    });
    expect(lines.get(`key-quota:${old.nearQuota}`)).toMatchObject({
      what: 'Key old-near-quota',
      reason: 'near its quota: used 950 of 1,000 tokens today (UTC)',
    });
    expect(lines.get(`key-budget:${old.nearBudget}`)).toMatchObject({ what: 'Key old-near-budget' });
    expect(lines.get(`key-budget:${old.nearBudget}`)?.reason).toMatch(/^near its money budget/);
    // under its warning share, or revoked: no line
    expect(lines.has(`key-budget:${old.calmBudget}`)).toBe(false);
    expect(lines.has(`key-budget:${old.revokedBudget}`)).toBe(false);
  });

  it('usage entries carry their key as it is now: name, status and quota', async () => {
    const res = await s.call('GET', `/gateway/usage?key_id=${old.nearQuota}`);
    expect(res.status, res.text).toBe(200);
    expect((res.json as { data: unknown[] }).data[0]).toMatchObject({
      key_id: old.nearQuota,
      key: {
        name: 'old-near-quota',
        status: 'active',
        quota: { requests_per_minute: null, tokens_per_minute: null, tokens_per_day: 1000 },
      },
    });
  });

  it('has_budget=true: the keys with a money budget of any age, newest first, with their spend', async () => {
    const all = await s.call('GET', '/gateway/keys?has_budget=true&limit=10');
    expect(all.status, all.text).toBe(200);
    const keys = (all.json as { data: { id: string; spend: { today: number } | null }[] }).data;
    expect(keys.map((k) => k.id).sort()).toEqual([old.nearBudget, old.calmBudget, old.revokedBudget].sort());
    expect(keys.find((k) => k.id === old.nearBudget)?.spend?.today).toBe(0.9);
    const active = await s.call('GET', '/gateway/keys?has_budget=true&status=active&count=true&limit=1');
    expect(active.json).toMatchObject({ total: 2, total_capped: false, has_more: true });
    const second = await s.call(
      'GET',
      `/gateway/keys?has_budget=true&status=active&limit=1&after=${(active.json as { next_cursor: string }).next_cursor}`,
    );
    expect((second.json as { data: unknown[]; has_more: boolean }).has_more).toBe(false);
    expect((second.json as { data: unknown[] }).data).toHaveLength(1);
  });

  it('has_budget is read from its partial index, never sorting the keys; a bad value is a problem', async () => {
    const db = s.server.db;
    const plans: string[] = [];
    const prepare = db.prepare.bind(db);
    const spy = (sql: string) => {
      if (sql.includes('FROM gateway_keys k') && sql.includes('LIMIT @limit'))
        plans.push(
          (prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ limit: 1, status: 'active' }) as { detail: string }[])
            .map((r) => r.detail)
            .join(' | '),
        );
      return prepare(sql);
    };
    const spied = Object.assign(Object.create(db) as typeof db, { prepare: spy });
    listGatewayKeys(spied, { limit: 1, has_budget: 'true', status: 'active' });
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatch(/INDEX gateway_keys_budget/);
    expect(plans[0]).not.toContain('TEMP B-TREE');
    const res = await s.call('GET', '/gateway/keys?has_budget=false');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });
});
