import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createGatewayKey, listGatewayKeys, revokeGatewayKey } from '../../src/server/gateway/keys.js';
import { encodeCursor } from '../../src/server/http/paging.js';

/**
 * The keys list pages in SQL (issue 41 §6): each page read from an index in the list's order, with
 * filters by a name's beginning, status and id. Small data here; test/bench/server-gateway-scale
 * measures a million keys.
 */
interface Key {
  id: string;
  name: string;
  status: string;
  created_at: string;
}

let s: TestServer;
const T0 = Date.UTC(2026, 0, 1);
beforeAll(async () => {
  s = await startTestServer();
  const db = s.server.db;
  // 40 keys, three to a creation time so that the seq breaks ties; every fifth revoked
  db.transaction(() => {
    for (let i = 0; i < 40; i++) {
      const name = i % 4 === 0 ? `Billing-${String(i).padStart(2, '0')}` : `svc-${String(i).padStart(2, '0')}`;
      const { key } = createGatewayKey(db, { name, created_by: 'test', created_at_ms: T0 + Math.floor(i / 3) * 1000 });
      if (i % 5 === 0) revokeGatewayKey(db, key.id, T0 + 100_000);
    }
    createGatewayKey(db, { name: 'Zürich-edge', created_by: 'test', created_at_ms: T0 });
  })();
});
afterAll(async () => {
  await s.close();
});

const get = async (query: string) => {
  const res = await s.call('GET', `/gateway/keys?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json as { data: Key[]; next_cursor: string | null; has_more: boolean };
};
/** Every page of a query, following the cursors. */
async function walk(query: string, limit: number, from: string | null = null): Promise<Key[]> {
  const keys: Key[] = [];
  for (let after = from, n = 0; n < 100; n++) {
    const page = await get(`${query}&limit=${limit}${after ? `&after=${after}` : ''}`);
    keys.push(...page.data);
    expect(page.has_more).toBe(page.next_cursor !== null);
    if (!page.has_more) return keys;
    after = page.next_cursor;
  }
  throw new Error('the cursors never ended');
}
const everyKey = () =>
  s.server.db.prepare('SELECT id, name, status, created_at, seq FROM gateway_keys').all() as (Key & { seq: number })[];

describe('GET /gateway/keys paged in SQL', () => {
  it('walks every key once, newest first, the later of two with one creation time first', async () => {
    const expected = everyKey()
      .sort((a, b) => (a.created_at === b.created_at ? b.seq - a.seq : a.created_at < b.created_at ? 1 : -1))
      .map((k) => k.id);
    expect((await walk('', 7)).map((k) => k.id)).toEqual(expected);
    expect((await walk('', 500)).map((k) => k.id)).toEqual(expected);
  });

  it('a key created between two pages neither repeats nor hides another', async () => {
    const first = await get('limit=10');
    const { key } = createGatewayKey(s.server.db, { name: 'between-pages', created_by: 'test' });
    const rest = await walk('', 10, first.next_cursor);
    const seen = [...first.data, ...rest].map((k) => k.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).not.toContain(key.id); // newer than the first page: it is on the first page asked anew
    expect(seen.length).toBe(everyKey().length - 1);
    expect((await get('limit=1')).data[0].id).toBe(key.id);
  });

  it('filters by status, newest first', async () => {
    const revoked = await walk('status=revoked', 3);
    expect(revoked.length).toBe(8);
    expect(revoked.every((k) => k.status === 'revoked')).toBe(true);
    expect(revoked.map((k) => k.created_at)).toEqual(
      revoked
        .map((k) => k.created_at)
        .sort()
        .reverse(),
    );
    const active = await walk('status=active', 9);
    expect(active.length + revoked.length).toBe(everyKey().length);
  });

  it('searches by the beginning of a name, letter case aside, in name order', async () => {
    const billing = await walk('name=bILLing-', 4);
    expect(billing.map((k) => k.name)).toEqual(
      ['00', '04', '08', '12', '16', '20', '24', '28', '32', '36'].map((n) => `Billing-${n}`),
    );
    expect((await walk('name=svc-1', 2)).map((k) => k.name)).toEqual(
      ['10', '11', '13', '14', '15', '17', '18', '19'].map((n) => `svc-${n}`),
    );
    // with the status: revoked billing keys only
    expect((await walk('name=billing&status=revoked', 2)).map((k) => k.name)).toEqual(['Billing-00', 'Billing-20']);
    expect((await get(`name=${encodeURIComponent('zürich')}`)).data.map((k) => k.name)).toEqual(['Zürich-edge']);
    expect(await get('name=nobody')).toEqual({ data: [], next_cursor: null, has_more: false });
  });

  it('reads one key by id, and none for an unknown id', async () => {
    const some = everyKey()[5];
    expect((await get(`id=${some.id}`)).data.map((k) => k.id)).toEqual([some.id]);
    expect((await get(`id=${some.id}&status=${some.status === 'active' ? 'revoked' : 'active'}`)).data).toEqual([]);
    expect((await get('id=key_unknown')).data).toEqual([]);
  });

  it('still takes a cursor of the version that paged in memory (the last key id)', async () => {
    const all = await walk('', 500);
    const page = await get(`limit=3&after=${encodeCursor({ k: all[4].id })}`);
    expect(page.data.map((k) => k.id)).toEqual(all.slice(5, 8).map((k) => k.id));
  });

  it('refuses a bad query with a problem and changes nothing', async () => {
    const before = everyKey().length;
    const newest = await get('limit=2');
    const named = await get('limit=2&name=svc');
    for (const query of [
      'after=garbage',
      `name=svc&after=${newest.next_cursor}`, // a cursor of the other order
      `after=${named.next_cursor}`,
      `after=${encodeCursor({ k: 'key_gone' })}`,
      `name=${'x'.repeat(65)}`,
      'name=',
      'status=expired',
      'limit=501',
      'color=blue',
    ]) {
      const res = await s.call('GET', `/gateway/keys?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers['content-type'], query).toContain('application/problem+json');
    }
    expect(everyKey().length).toBe(before);
  });

  it('reads each page from an index in its order, never sorting the whole table', () => {
    const db = s.server.db;
    const plans: string[] = [];
    const prepare = db.prepare.bind(db);
    const spy = (sql: string) => {
      if (sql.includes('FROM gateway_keys k') && sql.includes('LIMIT @limit'))
        plans.push(
          (
            prepare(`EXPLAIN QUERY PLAN ${sql}`).all({
              limit: 1,
              c: '',
              n: '',
              s: 0,
              status: 'active',
              from: 'a',
              to: 'b',
              id: 'x',
            }) as { detail: string }[]
          )
            .map((r) => r.detail)
            .join(' | '),
        );
      return prepare(sql);
    };
    const spied = Object.assign(Object.create(db) as typeof db, { prepare: spy });
    const first = listGatewayKeys(spied, { limit: 5 });
    listGatewayKeys(spied, { limit: 5, after: first.next_cursor! });
    listGatewayKeys(spied, { limit: 5, status: 'revoked' });
    const named = listGatewayKeys(spied, { limit: 2, name: 'svc' });
    listGatewayKeys(spied, { limit: 2, name: 'svc', after: named.next_cursor! });
    expect(plans).toHaveLength(5);
    for (const plan of plans) {
      expect(plan).toMatch(/^(SCAN|SEARCH) k USING INDEX gateway_keys_/);
      expect(plan).not.toContain('TEMP B-TREE');
    }
  });
});
