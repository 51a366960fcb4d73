import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from '../../src/server/db/sqlite-driver.js';
import { migrate } from '../../src/server/db/open.js';
import { migrations } from '../../src/server/db/migrations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertGatewayKeys, numberedKeys } from '../helpers/seed-gateway-keys.js';
import { createGatewayKey, listGatewayKeys, revokeGatewayKey, touchGatewayKey } from '../../src/server/gateway/keys.js';
import { meterCall } from '../../src/server/gateway/metering.js';
import { KEY_COUNT_CAP, UNLIMITED } from '../../src/contract/index.js';

/**
 * The keys list answers "which keys" over every key (issue 41 §3, §1 at scale): unused for N days,
 * never used, expiring within N days, each from an index in its own order, with a count that stops
 * at KEY_COUNT_CAP. The front door keeps a key's idleness as it meters calls. Small data here;
 * test/bench/server-gateway-scale measures a million keys.
 */
interface Key {
  id: string;
  name: string;
  status: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}
interface KeyPage {
  data: Key[];
  next_cursor: string | null;
  has_more: boolean;
  total?: number;
  total_capped?: boolean;
}

const DAY = 86_400_000;
const NOW = Date.now();
let s: TestServer;
/** the secret of the key the front door is called with */
let callerSecret = '';
let callerId = '';

beforeAll(async () => {
  s = await startTestServer();
  const db = s.server.db;
  db.transaction(() => {
    // idle-N: created 100 days ago, last used N days ago (never when N is null)
    for (const [name, usedDaysAgo] of [
      ['idle-90', 90],
      ['idle-45', 45],
      ['idle-31', 31],
      ['idle-29', 29],
      ['idle-1', 1],
      ['never-old', null],
    ] as const) {
      const { key } = createGatewayKey(db, { name, created_by: 'test', created_at_ms: NOW - 100 * DAY });
      if (usedDaysAgo !== null) touchGatewayKey(db, key.id, NOW - usedDaysAgo * DAY);
    }
    // made yesterday, never used: never used, but not idle for 30 days yet
    createGatewayKey(db, { name: 'never-new', created_by: 'test', created_at_ms: NOW - DAY });
    // revoked long ago: in no filter
    const { key: gone } = createGatewayKey(db, {
      name: 'revoked-old',
      created_by: 'test',
      created_at_ms: NOW - 200 * DAY,
    });
    revokeGatewayKey(db, gone.id, NOW - 150 * DAY);
    // expiries
    for (const [name, inDays] of [
      ['exp-3', 3],
      ['exp-6', 6],
      ['exp-1', 1],
      ['exp-20', 20],
    ] as const)
      createGatewayKey(db, {
        name,
        created_by: 'test',
        created_at_ms: NOW - 2 * DAY,
        expires_at: new Date(NOW + inDays * DAY).toISOString(),
      });
    const { key: revokedSoon } = createGatewayKey(db, {
      name: 'exp-2-revoked',
      created_by: 'test',
      created_at_ms: NOW - 2 * DAY,
      expires_at: new Date(NOW + 2 * DAY).toISOString(),
    });
    revokeGatewayKey(db, revokedSoon.id);
    // expired an hour ago: set in SQL, as an expiry is only ever set in the future
    const { key: lapsed } = createGatewayKey(db, {
      name: 'exp-past',
      created_by: 'test',
      created_at_ms: NOW - 2 * DAY,
    });
    db.prepare('UPDATE gateway_keys SET expires_at = ? WHERE id = ?').run(
      new Date(NOW - 3_600_000).toISOString(),
      lapsed.id,
    );
  })();
  const created = await s.call('POST', '/gateway/keys', { body: { name: 'caller' } });
  expect(created.status, created.text).toBe(201);
  callerSecret = created.json.secret;
  callerId = created.json.id;
});
afterAll(async () => {
  await s?.close();
});

const get = async (query: string): Promise<KeyPage> => {
  const res = await s.call('GET', `/gateway/keys?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json as KeyPage;
};
/** Every page of a query, following the cursors. */
async function walk(query: string, limit: number): Promise<Key[]> {
  const keys: Key[] = [];
  for (let after: string | null = null, n = 0; n < 100; n++) {
    const page = await get(`${query}&limit=${limit}${after ? `&after=${after}` : ''}`);
    keys.push(...page.data);
    if (!page.has_more) return keys;
    after = page.next_cursor;
  }
  throw new Error('the cursors never ended');
}
const names = (keys: Key[]) => keys.map((k) => k.name);

describe('GET /gateway/keys by idleness and expiry', () => {
  it('unused_days: active keys whose last use, or creation when never used, is that long ago, longest idle first', async () => {
    expect(names(await walk('unused_days=30', 2))).toEqual(['never-old', 'idle-90', 'idle-45', 'idle-31']);
    expect(names(await walk('unused_days=40', 1))).toEqual(['never-old', 'idle-90', 'idle-45']);
    // a day: the keys made yesterday and two days ago are idle too
    const day = names(await walk('unused_days=1', 3));
    expect(day.slice(0, 5)).toEqual(['never-old', 'idle-90', 'idle-45', 'idle-31', 'idle-29']);
    expect(day).toContain('idle-1');
    expect(day).toContain('never-new');
    expect(day).not.toContain('revoked-old');
    expect(day).not.toContain('caller');
  });

  it('never_used: active keys never used, newest first, however young', async () => {
    const never = names(await walk('never_used=true', 2));
    expect(never).toContain('never-new');
    expect(never.at(-1)).toBe('never-old');
    expect(never).not.toContain('idle-1');
    expect(never).not.toContain('revoked-old');
    // combined with unused_days: the old one only
    expect(names(await walk('never_used=true&unused_days=30', 5))).toEqual(['never-old']);
  });

  it('expires_within_days: active keys not yet expired, soonest first', async () => {
    expect(names(await walk('expires_within_days=7', 1))).toEqual(['exp-1', 'exp-3', 'exp-6']);
    expect(names(await walk('expires_within_days=30', 2))).toEqual(['exp-1', 'exp-3', 'exp-6', 'exp-20']);
    // with a name's beginning: in name order
    expect(names(await walk('expires_within_days=30&name=EXP-', 10))).toEqual(['exp-1', 'exp-20', 'exp-3', 'exp-6']);
  });

  it('count=true says how many pass the filters over every page; without it, no count', async () => {
    const page = await get('unused_days=30&count=true&limit=1');
    expect(page.data).toHaveLength(1);
    expect(page).toMatchObject({ total: 4, total_capped: false, has_more: true });
    expect(await get('expires_within_days=7&count=true&limit=2')).toMatchObject({ total: 3, total_capped: false });
    const plain = await get('unused_days=30&limit=1');
    expect(plain.total).toBeUndefined();
    expect(plain.total_capped).toBeUndefined();
  });

  it('a call through the front door takes a key out of the unused ones', async () => {
    // the caller key was made through the API: use it, and make it look old first
    s.server.db
      .prepare('UPDATE gateway_keys SET created_at = ?, idle_since_minute = ? WHERE id = ?')
      .run(new Date(NOW - 60 * DAY).toISOString(), Math.floor((NOW - 60 * DAY) / 60_000), callerId);
    expect(names(await walk('unused_days=30', 10))).toContain('caller');
    const res = await s.call('POST', '/v1/gateway/chat', { role: null, token: callerSecret, body: { messages: [] } });
    expect(res.status, res.text).toBe(200);
    expect(names(await walk('unused_days=30', 10))).not.toContain('caller');
    expect(names(await walk('unused_days=1', 50))).not.toContain('caller');
  });

  it('metering a call moves the indexed idleness, written only when the minute of the use changes', () => {
    const db = s.server.db;
    const { key } = createGatewayKey(db, { name: 'metered', created_by: 'test', created_at_ms: NOW - 10 * DAY });
    const idle = () =>
      db.prepare('SELECT idle_since_minute FROM gateway_keys WHERE id = ?').pluck().get(key.id) as number;
    expect(idle()).toBe(Math.floor((NOW - 10 * DAY) / 60_000));
    const minute = Math.floor(NOW / 60_000);
    const at = minute * 60_000 + 5_000;
    const charge = { workload: 'chat', model_id: null, price: null, currency: null };
    meterCall(db, key.id, UNLIMITED, { input_tokens: 1, output_tokens: 1 }, at, charge);
    expect(idle()).toBe(minute);
    // rows changed by one use, the trigger's included: 1 in the same minute, 2 when the minute moves
    const changesOf = (ms: number) => {
      const before = db.prepare('SELECT total_changes()').pluck().get() as number;
      touchGatewayKey(db, key.id, ms);
      return (db.prepare('SELECT total_changes()').pluck().get() as number) - before;
    };
    expect(changesOf(at + 30_000)).toBe(1);
    expect(idle()).toBe(minute);
    expect(changesOf(at + 60_000)).toBe(2);
    expect(idle()).toBe(minute + 1);
    expect(changesOf(at + 61_000)).toBe(1);
  });

  it('counts up to KEY_COUNT_CAP and then says the count is capped', async () => {
    const db = s.server.db;
    const created = new Date(NOW - 400 * DAY).toISOString();
    insertGatewayKeys(
      db,
      numberedKeys('bulk', KEY_COUNT_CAP + 5, (i) => ({ name: `bulk-${i}`, created_at: created })),
    );
    // inserted without idle_since_minute: the trigger gives them their creation's minute
    expect(await get('unused_days=300&count=true&limit=1')).toMatchObject({
      total: KEY_COUNT_CAP,
      total_capped: true,
    });
    expect(await get('never_used=true&unused_days=300&count=true&limit=1')).toMatchObject({
      total: KEY_COUNT_CAP,
      total_capped: true,
    });
    expect((await get('unused_days=300&limit=1')).data[0].name).toMatch(/^bulk-/);
  });

  it('refuses a bad filter or a cursor of another order with a problem, and changes nothing', async () => {
    const before = s.server.db.prepare('SELECT COUNT(*) FROM gateway_keys').pluck().get();
    const idle = await get('unused_days=1&limit=1');
    const expiring = await get('expires_within_days=30&limit=1');
    const newest = await get('limit=1');
    for (const query of [
      'unused_days=0',
      'unused_days=3651',
      'unused_days=ten',
      'unused_days=1.5',
      'expires_within_days=-1',
      'never_used=false',
      'count=yes',
      `expires_within_days=30&after=${idle.next_cursor}`,
      `unused_days=1&after=${expiring.next_cursor}`,
      `unused_days=1&after=${newest.next_cursor}`,
      `after=${idle.next_cursor}`,
    ]) {
      const res = await s.call('GET', `/gateway/keys?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers['content-type'], query).toContain('application/problem+json');
    }
    expect(s.server.db.prepare('SELECT COUNT(*) FROM gateway_keys').pluck().get()).toBe(before);
  });

  it('reads each filter and its count from an index in its order, never sorting the keys', () => {
    const db = s.server.db;
    const plans: string[] = [];
    const prepare = db.prepare.bind(db);
    const spy = (sql: string) => {
      if (sql.includes('FROM gateway_keys k'))
        plans.push(
          (
            prepare(`EXPLAIN QUERY PLAN ${sql}`).all(
              Object.fromEntries(
                ['limit', 'cap', 'idle_until', 'now', 'expires_by', 'from', 'to', 'c', 'n', 'i', 'e', 's']
                  .filter((p) => sql.includes(`@${p}`))
                  .map((p) => [p, p === 'limit' || p === 'cap' || p === 'i' || p === 's' ? 1 : '']),
              ),
            ) as { detail: string }[]
          )
            .map((r) => r.detail)
            .join(' | '),
        );
      return prepare(sql);
    };
    const spied = Object.assign(Object.create(db) as typeof db, { prepare: spy });
    for (const q of [
      { unused_days: 30, count: 'true' as const },
      { never_used: 'true' as const, count: 'true' as const },
      { expires_within_days: 7, count: 'true' as const },
      { unused_days: 1, name: 'idle' },
      { unused_days: 1, expires_within_days: 30 },
    ]) {
      const first = listGatewayKeys(spied, { limit: 1, ...q });
      if (first.next_cursor) listGatewayKeys(spied, { limit: 1, ...q, after: first.next_cursor });
    }
    expect(plans.length).toBeGreaterThanOrEqual(8);
    for (const plan of plans) {
      expect(plan).toMatch(/(^|\| )(SCAN|SEARCH) k USING (COVERING )?INDEX gateway_keys_/);
      expect(plan).not.toContain('TEMP B-TREE');
    }
  });
});

describe('migration 16', () => {
  it('gives every key its idleness from its last use, or its creation when never used', () => {
    const db = new Database(':memory:');
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    for (const m of migrations.filter((x) => x.version <= 15)) {
      db.exec(m.sql);
      m.run?.(db);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-01-01T00:00:00Z');
    }
    insertGatewayKeys(db, [
      {
        id: 'key_used',
        name: 'used',
        prefix: 'agk_u',
        secret_hash: 'h1',
        created_at: '2026-01-01T00:00:00Z',
        last_used_at: '2026-03-01T10:30:59.999Z',
        quota_changed_at: '2026-01-01T00:00:00Z',
      },
      {
        id: 'key_never',
        name: 'never',
        prefix: 'agk_n',
        secret_hash: 'h2',
        created_at: '2026-02-01T12:00:30Z',
        last_used_at: null,
        quota_changed_at: '2026-02-01T12:00:30Z',
      },
    ]);
    migrate(db);
    expect(db.prepare('SELECT id, idle_since_minute FROM gateway_keys ORDER BY id').all()).toEqual([
      { id: 'key_never', idle_since_minute: Date.parse('2026-02-01T12:00:00Z') / 60_000 },
      { id: 'key_used', idle_since_minute: Date.parse('2026-03-01T10:30:00Z') / 60_000 },
    ]);
    db.close();
  });
});
