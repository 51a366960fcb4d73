import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { issueToken } from '../../src/server/tokens.js';
import { migrations } from '../../src/server/db/migrations.js';
import { migrate } from '../../src/server/db/open.js';
import { listAudit } from '../../src/server/governance/audit-trail.js';
import { INDEX_CANDIDATES, SCAN_BUDGET, SUMMARY_SCAN_BUDGET } from '../../src/server/governance/search.js';

/**
 * Issue 37, points 1 and 4, through the real server: a text search reads a bounded number of rows
 * per request (a short page with a cursor when its budget ran out, a count refused as too broad),
 * each caller's search time is limited (429 with Retry-After), the trigram index follows updates,
 * and a control character in the text is refused, not cut short.
 */
const BASE = Date.parse('2026-03-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
/** more rows than a count may read, so that a common text's count over all of them is refused */
const FILLER = SUMMARY_SCAN_BUDGET + 1_000;
/** the oldest entries hold the two-letter text `kq` (no trigram: searched in time order only) */
const OLD_HITS = 5;

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
  const rows: AuditSeed[] = [];
  const row = (i: number, extra: Partial<AuditSeed>): AuditSeed => ({
    id: `aud_${String(i).padStart(6, '0')}`,
    actor: { subject: 'ana@corp', role: 'it_admin' },
    action: 'channel.update',
    target: { type: 'channel', id: `chan_${i}`, name: null },
    outcome: 'success',
    status: 200,
    request_id: `req_${i}`,
    source_ip: null,
    details: { n: i },
    at_ms: BASE + i * 10,
    ...extra,
  });
  for (let i = 0; i < OLD_HITS; i++) rows.push(row(i, { details: { note: `kq marker ${i}` } }));
  for (let i = OLD_HITS; i < OLD_HITS + FILLER; i++)
    rows.push(row(i, i % 9_000 === 0 ? { target: { type: 'channel', id: `chan_${i}`, name: 'lilac-rare' } } : {}));
  insertAuditBatch(s.server.db, rows);
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const ids = (page: { data: { id: string }[] }) => page.data.map((e) => e.id);
let callers = 0;
/** an auditor of its own: each caller has its own search time, which a test must not inherit spent */
const auditor = () => ({ token: issueToken(s.server.db, 'auditor', `auditor-${++callers}`).token });

describe('text search reads a bounded number of rows per request', () => {
  it('a rare text of three or more characters is found whole in one page, from the index', async () => {
    const me = auditor();
    const r = await s.call('GET', '/audit?q=LILAC-RARE&limit=50', me);
    expect(r.status).toBe(200);
    const expected = [];
    for (let i = OLD_HITS; i < OLD_HITS + FILLER; i++)
      if (i % 9_000 === 0) expected.unshift(`aud_${String(i).padStart(6, '0')}`);
    expect(ids(r.json)).toEqual(expected);
    expect(r.json.has_more).toBe(false);
  });

  it('a text found only far back comes in short pages, each going on from where the last stopped', async () => {
    const me = auditor();
    const first = await s.call('GET', '/audit?q=kq&limit=50', me);
    expect(first.status).toBe(200);
    // the newest SCAN_BUDGET entries hold no `kq`: the first page stops there, empty, with more to read
    expect(first.json.data).toEqual([]);
    expect(first.json.has_more).toBe(true);
    const found: string[] = [];
    let cursor: string | null = first.json.next_cursor;
    let pages = 1;
    while (cursor) {
      const r = await s.call('GET', `/audit?q=kq&limit=50&after=${encodeURIComponent(cursor)}`, me);
      expect(r.status).toBe(200);
      found.push(...ids(r.json));
      cursor = r.json.next_cursor;
      pages++;
      expect(pages).toBeLessThanOrEqual(Math.ceil((OLD_HITS + FILLER) / SCAN_BUDGET) + 1);
    }
    expect(found).toEqual(['aud_000004', 'aud_000003', 'aud_000002', 'aud_000001', 'aud_000000']);
  });

  it('a count of a common text over more rows than it may read is refused, naming q; a narrower range is counted', async () => {
    const me = auditor();
    const broad = await s.call('GET', '/audit/summary?q=ana@corp', me);
    expect(broad.status).toBe(422);
    expect(broad.json.invalid_params).toEqual([{ name: 'q', reason: expect.stringContaining('too common') }]);
    expect(broad.json.detail).toMatch(/narrow the time range/);
    const end = BASE + (OLD_HITS + 1_000) * 10;
    const narrow = await s.call('GET', `/audit/summary?q=ana@corp&end_time=${iso(end)}`, me);
    expect(narrow.status).toBe(200);
    expect(narrow.json.total).toBe(OLD_HITS + 1_000);
    const rare = await s.call('GET', '/audit/summary?q=kq%20marker', me);
    expect(rare.status).toBe(200);
    expect(rare.json.total).toBe(OLD_HITS);
  });

  it('an export of a text found only far back holds exactly its entries, read a window at a time', async () => {
    const me = auditor();
    const r = await s.call('GET', '/audit/export?q=kq&format=jsonl', me);
    expect(r.status).toBe(200);
    const entries = r.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; action: string });
    // and the export's own entry, whose details name its filter
    expect(entries.map((e) => e.id).slice(0, OLD_HITS)).toEqual([
      'aud_000000',
      'aud_000001',
      'aud_000002',
      'aud_000003',
      'aud_000004',
    ]);
    expect(entries.slice(OLD_HITS).map((e) => e.action)).toEqual(['audit.export']);
    const csv = await s.call('GET', '/audit/export?q=kq&format=csv', me);
    expect(csv.text.split('\n').filter((l) => l.startsWith('aud_0000'))).toHaveLength(OLD_HITS);
  });

  it('the budgets are what docs/operations.md states', () => {
    expect([INDEX_CANDIDATES, SCAN_BUDGET, SUMMARY_SCAN_BUDGET]).toEqual([5_000, 20_000, 50_000]);
  });
});

describe('each caller has a search time allowance', () => {
  it('a caller searching back to back is answered 429 with Retry-After, while others and its plain reads go on', async () => {
    const greedy = issueToken(s.server.db, 'auditor', 'greedy-auditor').token;
    let refused: Awaited<ReturnType<TestServer['call']>> | undefined;
    for (let i = 0; i < 1_000 && !refused; i++) {
      const r = await s.call('GET', '/audit?q=kq&limit=50', { token: greedy });
      if (r.status === 429) refused = r;
      else expect(r.status).toBe(200);
    }
    expect(refused, 'no 429 after 1,000 searches').toBeDefined();
    expect(refused!.json.code).toBe('SVC-ADMIN-429');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // another caller's search, and the greedy caller's reads without a search, are not held back
    expect((await s.call('GET', '/audit?q=kq&limit=50', { role: 'auditor' })).status).toBe(200);
    expect((await s.call('GET', '/audit?limit=5', { token: greedy })).status).toBe(200);
  });
});

describe('an export with a text search', () => {
  it("is one of its caller's searches under way until its stream ends: a fifth at once is refused 429", async () => {
    const me = auditor();
    const url = `${s.url}/v1/admin/audit/export?q=ana@corp&format=jsonl`;
    const headers = { authorization: `Bearer ${me.token}` };
    // four exports of every entry, their bodies left unread: the streams wait on the client, under way
    const agent = new Agent();
    const open = await Promise.all([0, 1, 2, 3].map(() => request(url, { headers, dispatcher: agent })));
    expect(open.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    const fifth = await s.call('GET', '/audit/export?q=ana@corp&format=jsonl', me);
    expect(fifth.status).toBe(429);
    expect(fifth.json.detail).toMatch(/4 searches under way/);
    // a search of the same caller is refused too; another caller's is not
    expect((await s.call('GET', '/audit?q=kq&limit=5', me)).status).toBe(429);
    expect((await s.call('GET', '/audit?q=kq&limit=5', auditor())).status).toBe(200);
    for (const r of open) r.body.destroy();
    await agent.destroy();
    // the four end as their connections close: the caller may search again
    const deadline = Date.now() + 10_000;
    let again = await s.call('GET', '/audit?q=kq&limit=5', me);
    while (again.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setImmediate(r));
      again = await s.call('GET', '/audit?q=kq&limit=5', me);
    }
    expect(again.status).toBe(200);
  });
});

describe('search text', () => {
  it.each(['%00zzzz', 'zz%00zz', 'abc%0Adef', 'ab%1B[31m', 'ab%C2%85cd'])(
    'with a control character (%s) is refused with 400 naming q, on every route that searches',
    async (q) => {
      for (const path of [
        '/audit',
        '/audit/summary',
        '/audit/export',
        '/agent/journal',
        '/agent/journal/summary',
        '/agent/journal/export',
      ]) {
        const r = await s.call('GET', `${path}?q=${q}`, { role: 'auditor' });
        expect(r.status, path).toBe(400);
        expect(
          r.json.invalid_params?.map((p: { name: string }) => p.name),
          path,
        ).toEqual(['q']);
      }
    },
  );
});

describe('the trigram index', () => {
  it('follows an entry changed or removed in the database', async () => {
    const db = s.server.db;
    db.prepare(`UPDATE audit SET target_name = 'peony-changed' WHERE id = 'aud_009000'`).run();
    const changed = await s.call('GET', '/audit?q=peony-changed', { role: 'auditor' });
    expect(ids(changed.json)).toEqual(['aud_009000']);
    const before = await s.call('GET', '/audit?q=lilac-rare', { role: 'auditor' });
    expect(ids(before.json)).not.toContain('aud_009000');
  });

  it('is built for the entries of a database from before it', () => {
    const db = new Database(':memory:');
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    for (const m of migrations.filter((x) => x.version < 5)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, iso(BASE));
    }
    const insert =
      db.prepare(`INSERT INTO audit (id, at, at_ms, actor_subject, actor_role, action, target_type, target_id, outcome, status, request_id, details)
      VALUES (?, ?, ?, 'ana@corp', 'it_admin', 'channel.update', 'channel', ?, 'success', 200, 'req', '{}')`);
    for (let i = 0; i < 20; i++)
      insert.run(`aud_${i}`, iso(BASE + i), BASE + i, i === 7 ? 'chan_hyacinth' : `chan_${i}`);
    migrate(db);
    expect(listAudit(db, { limit: 10, q: 'hyacinth' }).data.map((e) => e.id)).toEqual(['aud_7']);
  });
});
