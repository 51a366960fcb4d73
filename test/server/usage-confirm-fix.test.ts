/**
 * What an operator needs to confirm a fix (issue 39): usage by the minute, the refusals since a
 * key's quota last changed, and the unknown workload names a key's clients ask for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertGatewayKeys } from '../helpers/seed-gateway-keys.js';
import { recordUnknownWorkload, recordUsage, OTHER_WORKLOADS } from '../../src/server/gateway/metering.js';
import { createGatewayKey } from '../../src/server/gateway/keys.js';
import Database from '../../src/server/db/sqlite-driver.js';
import { migrate } from '../../src/server/db/open.js';
import { migrations } from '../../src/server/db/migrations.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.close();
});

const minuteOf = (isoTime: string) => Date.parse(isoTime) / 60_000;
const create = async (name: string, quota?: Record<string, number | null>) => {
  const res = await s.call('POST', '/gateway/keys', { body: quota ? { name, quota } : { name } });
  expect(res.status).toBe(201);
  return res.json as { id: string; secret: string; created_at: string; quota_changed_at: string };
};
const keyOf = async (id: string) => {
  const list = await s.call('GET', '/gateway/keys?limit=500', { role: 'auditor' });
  return (list.json.data as { id: string; quota_changed_at: string; rejected_since_quota_change: number }[]).find(
    (k) => k.id === id,
  )!;
};
const gateway = (workload: string, secret: string) =>
  s.call('POST', `/v1/gateway/${workload}`, { role: null, token: secret, body: { max_tokens: 1 } });

/** Calls that must land in one UTC minute start away from its edge. */
async function awayFromMinuteEdge() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000 || intoMinute < 1000)
    await new Promise((r) => setTimeout(r, ((61_000 - intoMinute) % 60_000) + 50));
}

describe('usage in minute buckets', () => {
  it('lists every minute of the range with its requests and refusals', async () => {
    const { key } = createGatewayKey(s.server.db, { name: 'minutes', created_by: 'test' });
    recordUsage(s.server.db, key.id, minuteOf('2026-03-01T10:05:00Z'), {
      requests: 4,
      input_tokens: 8,
      rejected_by: { requests_per_minute: 3 },
    });
    recordUsage(s.server.db, key.id, minuteOf('2026-03-01T10:59:00Z'), { requests: 2, output_tokens: 5 });
    // outside the hour asked for
    recordUsage(s.server.db, key.id, minuteOf('2026-03-01T11:00:00Z'), { requests: 100 });

    const res = await s.call(
      'GET',
      `/gateway/usage?key_id=${key.id}&bucket=minute&start_time=2026-03-01T10:00:00Z&end_time=2026-03-01T11:00:00Z`,
      { role: 'auditor' },
    );
    expect(res.status).toBe(200);
    expect(res.json.bucket).toBe('minute');
    const entry = res.json.data[0];
    expect(entry).toMatchObject({ requests: 6, rejected: 3 });
    expect(entry.buckets).toHaveLength(60);
    expect(entry.buckets[0].start_time).toBe('2026-03-01T10:00:00Z');
    expect(entry.buckets[5]).toEqual({
      start_time: '2026-03-01T10:05:00Z',
      requests: 4,
      rejected: 3,
      input_tokens: 8,
      output_tokens: 0,
      // usage recorded without its spend (as before costs were kept): its cost is not known
      cost: 0,
      unpriced_requests: 4,
    });
    expect(entry.buckets[59]).toMatchObject({ start_time: '2026-03-01T10:59:00Z', requests: 2, rejected: 0 });
    const busy = entry.buckets.filter((b: { requests: number; rejected: number }) => b.requests || b.rejected);
    expect(busy).toHaveLength(2);
  });

  it("counts a live call in its own minute of the last hour's buckets", async () => {
    const key = await create('minutes-live');
    expect((await gateway('chat', key.secret)).status).toBe(200);
    const start = new Date(Date.now() - 3600_000).toISOString();
    const res = await s.call('GET', `/gateway/usage?key_id=${key.id}&bucket=minute&start_time=${start}`);
    expect(res.status).toBe(200);
    const buckets = res.json.data[0].buckets as { start_time: string; requests: number }[];
    expect(buckets.length).toBeGreaterThanOrEqual(60);
    expect(buckets.length).toBeLessThanOrEqual(62);
    const used = buckets.filter((b) => b.requests > 0);
    expect(used).toHaveLength(1);
    // the minute of the call: one of the last two (the minute may have turned since)
    expect(buckets.indexOf(used[0])).toBeGreaterThanOrEqual(buckets.length - 2);
  });

  it('covers at most 24 hours: a longer range is a 400 problem naming the bound', async () => {
    const ok = await s.call(
      'GET',
      '/gateway/usage?bucket=minute&start_time=2026-03-01T00:00:00Z&end_time=2026-03-02T00:00:00Z',
    );
    expect(ok.status).toBe(200);
    // without start_time the range is the last 24 hours, within the bound
    expect((await s.call('GET', '/gateway/usage?bucket=minute')).status).toBe(200);

    const tooLong = await s.call(
      'GET',
      '/gateway/usage?bucket=minute&start_time=2026-03-01T00:00:00Z&end_time=2026-03-02T00:01:00Z',
    );
    expect(tooLong.status).toBe(400);
    expect(tooLong.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(tooLong.json.detail).toBe('bucket=minute covers at most 24 hours; the range spans 25');
    expect(tooLong.json.invalid_params).toEqual([
      {
        name: 'start_time',
        reason: 'range too long for bucket=minute (at most 24 h); narrow it or use a larger bucket',
      },
    ]);
    // the same range by the hour is fine
    expect(
      (await s.call('GET', '/gateway/usage?bucket=hour&start_time=2026-03-01T00:00:00Z&end_time=2026-03-02T00:01:00Z'))
        .status,
    ).toBe(200);
  });
});

describe("a key's refusals since its quota last changed", () => {
  it('starts at creation, restarts when a PUT changes the quota, and not when it sets the same one', async () => {
    await awayFromMinuteEdge();
    const key = await create('since-change', { requests_per_minute: 1 });
    expect(key.quota_changed_at).toBe(key.created_at);
    expect((await gateway('chat', key.secret)).status).toBe(200);
    expect((await gateway('chat', key.secret)).status).toBe(429);
    expect((await gateway('chat', key.secret)).status).toBe(429);
    // a key never changed counts from the minute it was created in
    expect(await keyOf(key.id)).toMatchObject({ quota_changed_at: key.created_at, rejected_since_quota_change: 2 });

    const before = Date.now();
    const put = await s.call('PUT', `/gateway/keys/${key.id}/quota`, {
      body: { requests_per_minute: 100, tokens_per_minute: null, tokens_per_day: null },
    });
    expect(put.status).toBe(200);
    const changedAt = put.json.quota_changed_at as string;
    expect(Date.parse(changedAt)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    // the refusals earlier in the minute of the change were made under the old quota
    expect(put.json.rejected_since_quota_change).toBe(0);
    expect((await gateway('chat', key.secret)).status).toBe(200);
    expect(await keyOf(key.id)).toMatchObject({ quota_changed_at: changedAt, rejected_since_quota_change: 0 });

    // refusals in a later minute count (recorded as the front door does, a minute on)
    const nextMinute = Math.floor(Date.parse(changedAt) / 60_000) + 1;
    recordUsage(s.server.db, key.id, nextMinute, { rejected_by: { requests_per_minute: 5 } });
    recordUsage(s.server.db, key.id, nextMinute + 1, { rejected_by: { tokens_per_day: 2 } });
    expect((await keyOf(key.id)).rejected_since_quota_change).toBe(7);
    // the usage answer says it of a key refused in its range, so the overview judges the change from it
    const usage = await s.call(
      'GET',
      `/gateway/usage?key_id=${key.id}&bucket=hour&end_time=${new Date((nextMinute + 3) * 60_000).toISOString()}`,
    );
    expect(usage.status).toBe(200);
    expect(usage.json.data[0].key).toMatchObject({ quota_changed_at: changedAt, rejected_since_quota_change: 7 });
    expect(usage.json.data[0].rejected).toBe(9);

    // the same quota again changes nothing: the count goes on
    const same = await s.call('PUT', `/gateway/keys/${key.id}/quota`, {
      body: { requests_per_minute: 100, tokens_per_minute: null, tokens_per_day: null },
    });
    expect(same.status).toBe(200);
    expect(same.json).toMatchObject({ quota_changed_at: changedAt, rejected_since_quota_change: 7 });
  });

  it('a refused PUT leaves the time of the last change as it was', async () => {
    const key = await create('since-refused');
    const bad = await s.call('PUT', `/gateway/keys/${key.id}/quota`, {
      body: { requests_per_minute: -1, tokens_per_minute: null, tokens_per_day: null },
    });
    expect(bad.status).toBe(400);
    const auditor = await s.call('PUT', `/gateway/keys/${key.id}/quota`, {
      role: 'auditor',
      body: { requests_per_minute: 5, tokens_per_minute: null, tokens_per_day: null },
    });
    expect(auditor.status).toBe(403);
    expect((await keyOf(key.id)).quota_changed_at).toBe(key.created_at);
  });
});

describe('refusals by workload name', () => {
  it('names the unknown workloads a key asked for, most refused first', async () => {
    await awayFromMinuteEdge();
    const key = await create('stray-client');
    for (const w of ['summarize-v2', 'nope', 'summarize-v2', 'chat']) await gateway(w, key.secret);
    const res = await s.call('GET', `/gateway/usage?key_id=${key.id}&bucket=minute&start_time=${startAgo(10)}`);
    const entry = res.json.data[0];
    expect(entry).toMatchObject({ requests: 1, rejected: 3, rejected_by: { unknown_workload: 3 } });
    expect(entry.rejected_workloads).toEqual([
      { workload: 'summarize-v2', rejected: 2 },
      { workload: 'nope', rejected: 1 },
    ]);
    // the problem names it too
    const refused = await gateway('summarize-v3', key.secret);
    expect(refused.status).toBe(404);
    expect(refused.json.detail).toBe('no workload summarize-v3');
  });

  it('keeps at most 20 names per key and minute, counting the rest together', async () => {
    const { key } = createGatewayKey(s.server.db, { name: 'random-names', created_by: 'test' });
    const at = Date.parse('2026-03-01T10:00:30Z');
    for (let i = 0; i < 30; i++) recordUnknownWorkload(s.server.db, key.id, `name-${i}`, at);
    recordUnknownWorkload(s.server.db, key.id, 'name-0', at);
    recordUnknownWorkload(s.server.db, key.id, 'x'.repeat(300), at);
    const rows = s.server.db
      .prepare('SELECT workload, rejected FROM usage_workload_rejections WHERE key_id = ?')
      .all(key.id) as { workload: string; rejected: number }[];
    expect(rows).toHaveLength(20);
    expect(rows.reduce((n, r) => n + r.rejected, 0)).toBe(32);
    expect(rows.find((r) => r.workload === OTHER_WORKLOADS)?.rejected).toBe(12);
    expect(rows.find((r) => r.workload === 'name-0')?.rejected).toBe(2);
    const res = await s.call(
      'GET',
      `/gateway/usage?key_id=${key.id}&start_time=2026-03-01T10:00:00Z&end_time=2026-03-01T11:00:00Z`,
    );
    expect(res.json.data[0].rejected).toBe(32);
    expect(res.json.data[0].rejected_workloads[0]).toEqual({ workload: OTHER_WORKLOADS, rejected: 12 });
  });
});

const startAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

describe('migration 9', () => {
  it('gives each existing key its newest quota change from the audit trail, else its creation', () => {
    const db = new Database(':memory:');
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    for (const m of migrations.filter((x) => x.version <= 8)) {
      db.exec(m.sql);
      m.run?.(db);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-01-01T00:00:00Z');
    }
    const created_at = '2026-01-01T00:00:00Z';
    insertGatewayKeys(db, [
      { id: 'key_changed', name: 'changed', prefix: 'agk_x', secret_hash: 'h1', created_at },
      { id: 'key_never', name: 'never', prefix: 'agk_x', secret_hash: 'h2', created_at },
    ]);
    const audit =
      db.prepare(`INSERT INTO audit (id, at, at_ms, actor_subject, action, target_type, target_id, outcome, status, request_id)
      VALUES (?, ?, ?, 'alice', ?, 'gateway_key', ?, ?, ?, 'req')`);
    const at = (t: string) => [t, Date.parse(t)] as const;
    audit.run('aud_1', ...at('2026-02-01T10:00:00Z'), 'gateway.key.quota', 'key_changed', 'success', 200);
    audit.run('aud_2', ...at('2026-02-03T10:00:00Z'), 'gateway.key.quota', 'key_changed', 'success', 200);
    // a refused change is no change
    audit.run('aud_3', ...at('2026-02-05T10:00:00Z'), 'gateway.key.quota', 'key_changed', 'failed', 400);
    audit.run('aud_4', ...at('2026-02-05T10:00:00Z'), 'gateway.key.quota', 'key_never', 'denied', 403);

    migrate(db);
    const changed = db.prepare('SELECT id, quota_changed_at FROM gateway_keys ORDER BY id').all();
    expect(changed).toEqual([
      { id: 'key_changed', quota_changed_at: '2026-02-03T10:00:00Z' },
      { id: 'key_never', quota_changed_at: '2026-01-01T00:00:00Z' },
    ]);
    expect(db.prepare('SELECT COUNT(*) FROM usage_workload_rejections').pluck().get()).toBe(0);
    db.close();
  });
});
