import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { auditSpec } from '../../src/server/governance/audit-trail.js';
import { normalizeFilters } from '../../src/server/governance/filters.js';
import { explainPage } from '../../src/server/governance/keyset.js';

/** Seeded history lives in March 2026, away from rows the server writes itself (now). */
const BASE = Date.parse('2026-03-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const ACTORS = ['ana', 'ben', 'cho'];
const ACTIONS = [
  'gateway.key.create',
  'gateway.key.revoke',
  'gateway.keyring.sync',
  'channel.update',
  'model.activate',
  'odd%name.x',
  'odd_name.y',
];
const OUTCOMES = ['success', 'success', 'denied', 'failed'] as const;

interface Seeded {
  id: string;
  at_ms: number;
  actor: string;
  action: string;
  outcome: string;
  seq: number;
}
let s: TestServer;
const seeded: Seeded[] = [];

/** Newest first, the list's order: time, then insertion order. */
const newestFirst = (rows: Seeded[]) => [...rows].sort((a, b) => b.at_ms - a.at_ms || b.seq - a.seq).map((r) => r.id);
const atOf = (i: number) => BASE + Math.floor(i - i / 3) * 60_000;
const WINDOW = `start_time=${iso(BASE)}&end_time=${iso(BASE + 86_400_000)}`;

async function allPages(query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const res = await s.call(
      'GET',
      `/audit?${query}&limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`,
    );
    expect(res.status).toBe(200);
    ids.push(...res.json.data.map((e: { id: string }) => e.id));
    expect(res.json.has_more).toBe(res.json.next_cursor !== null);
    if (!res.json.has_more) return ids;
    after = res.json.next_cursor;
  }
  throw new Error('paging did not end');
}

beforeAll(async () => {
  s = await startTestServer();
  const rows: AuditSeed[] = [];
  for (let i = 0; i < 150; i++) {
    // every third row shares its timestamp with the previous one: ties are ordered by insertion
    const at_ms = atOf(i);
    rows.push({
      id: `aud_seed${String(i).padStart(4, '0')}`,
      at_ms,
      actor: { subject: ACTORS[i % 3], role: 'it_admin' },
      action: ACTIONS[i % ACTIONS.length],
      target: { type: 'gateway.key', id: `key_${i}` },
      outcome: OUTCOMES[i % 4],
      status: 200,
      request_id: `req_seed${i}`,
      source_ip: i % 5 === 0 ? null : '10.1.2.3',
      details: { n: i, note: 'metadata' },
    });
  }
  // 40 distinct actions under one prefix: more than the server merges one by one
  for (let i = 0; i < 40; i++) {
    rows.push({
      id: `aud_bulk${String(i).padStart(4, '0')}`,
      at_ms: BASE + 3_600_000 + i * 1000,
      actor: { subject: 'dan', role: 'app_owner' },
      action: `bulk.a${String(i).padStart(2, '0')}`,
      target: { type: 'bulk', id: null },
      outcome: 'success',
      status: 200,
      request_id: `req_bulk${i}`,
      source_ip: null,
    });
  }
  insertAuditBatch(s.server.db, rows);
  const seqs = new Map(
    (s.server.db.prepare('SELECT id, seq FROM audit').all() as { id: string; seq: number }[]).map((r) => [r.id, r.seq]),
  );
  for (const r of rows)
    seeded.push({
      id: r.id!,
      at_ms: r.at_ms!,
      actor: r.actor.subject,
      action: r.action,
      outcome: r.outcome,
      seq: seqs.get(r.id!)!,
    });
});
afterAll(async () => {
  await s.close();
});

describe('GET /audit', () => {
  it('lists newest first in the contract shape, details parsed', async () => {
    const res = await s.call('GET', `/audit?${WINDOW}&limit=500`);
    expect(res.status).toBe(200);
    expect(res.json.data.map((e: { id: string }) => e.id)).toEqual(newestFirst(seeded));
    expect(res.json).toMatchObject({ has_more: false, next_cursor: null });
    const e = res.json.data.find((x: { id: string }) => x.id === 'aud_seed0005');
    expect(e).toEqual({
      id: 'aud_seed0005',
      at: new Date(atOf(5)).toISOString().replace('.000Z', 'Z'),
      actor: { subject: 'cho', role: 'it_admin' },
      action: ACTIONS[5],
      target: { type: 'gateway.key', id: 'key_5', name: null },
      outcome: 'success',
      status: 200,
      request_id: 'req_seed5',
      source_ip: null,
      details: { n: 5, note: 'metadata' },
      seq: expect.any(Number),
      prev_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('defaults to 50 entries and pages through every row exactly once', async () => {
    const first = await s.call('GET', `/audit?${WINDOW}`);
    expect(first.json.data).toHaveLength(50);
    expect(first.json.has_more).toBe(true);
    for (const limit of [7, 50, 500]) {
      expect(await allPages(WINDOW, limit)).toEqual(newestFirst(seeded));
    }
  });

  it('filters by actor, exact action and outcome', async () => {
    expect(await allPages(`${WINDOW}&actor=ben`, 20)).toEqual(newestFirst(seeded.filter((r) => r.actor === 'ben')));
    expect(await allPages(`${WINDOW}&action=gateway.key.revoke`, 20)).toEqual(
      newestFirst(seeded.filter((r) => r.action === 'gateway.key.revoke')),
    );
    expect(await allPages(`${WINDOW}&outcome=denied`, 20)).toEqual(
      newestFirst(seeded.filter((r) => r.outcome === 'denied')),
    );
    const both = seeded.filter(
      (r) => r.actor === 'ana' && r.outcome === 'failed' && r.action.startsWith('gateway.key.'),
    );
    expect(both.length).toBeGreaterThan(0);
    expect(await allPages(`${WINDOW}&actor=ana&outcome=failed&action=gateway.key.*`, 3)).toEqual(newestFirst(both));
    const none = await s.call('GET', `/audit?${WINDOW}&actor=nobody`);
    expect(none.json).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  it('matches an action prefix ending in *, with LIKE and GLOB characters taken literally', async () => {
    const prefixed = (p: string) => newestFirst(seeded.filter((r) => r.action.startsWith(p)));
    expect(await allPages(`${WINDOW}&action=gateway.key.*`, 4)).toEqual(prefixed('gateway.key.'));
    expect(prefixed('gateway.key.')).not.toEqual(prefixed('gateway.key'));
    expect(await allPages(`${WINDOW}&action=gateway.key*`, 4)).toEqual(prefixed('gateway.key'));
    expect(await allPages(`${WINDOW}&action=${encodeURIComponent('odd%*')}`, 5)).toEqual(prefixed('odd%'));
    expect(await allPages(`${WINDOW}&action=odd_*`, 5)).toEqual(prefixed('odd_'));
    expect(prefixed('odd_')).toHaveLength(seeded.filter((r) => r.action === 'odd_name.y').length);
    // past the per-value merge: 40 distinct values are matched row by row, still in order
    expect(await allPages(`${WINDOW}&action=bulk.*`, 6)).toEqual(prefixed('bulk.'));
    expect(await allPages(`${WINDOW}&action=*`, 100)).toEqual(newestFirst(seeded));
    // a * inside the value is literal: exact match, nothing here
    expect((await s.call('GET', `/audit?${WINDOW}&action=gateway.*.create`)).json.data).toEqual([]);
  });

  it('applies start_time inclusive and end_time exclusive', async () => {
    const from = BASE + 10 * 60_000;
    const to = BASE + 40 * 60_000;
    const res = await s.call('GET', `/audit?start_time=${iso(from)}&end_time=${iso(to)}&limit=500`);
    const expected = newestFirst(seeded.filter((r) => r.at_ms >= from && r.at_ms < to));
    expect(res.json.data.map((e: { id: string }) => e.id)).toEqual(expected);
    expect(seeded.some((r) => r.at_ms === from)).toBe(true);
    expect(seeded.some((r) => r.at_ms === to)).toBe(true);
    // one-sided ranges
    const since = await allPages(`start_time=${iso(BASE + 3_600_000)}&actor=dan`, 50);
    expect(since).toEqual(newestFirst(seeded.filter((r) => r.actor === 'dan')));
    const until = await allPages(`end_time=${iso(BASE + 60_000)}`, 50);
    expect(until).toEqual(newestFirst(seeded.filter((r) => r.at_ms < BASE + 60_000)));
  });

  it('answers 400 problem+json for bad input', async () => {
    const page = await s.call('GET', `/audit?${WINDOW}&actor=ana&limit=5`);
    const cursor = encodeURIComponent(page.json.next_cursor);
    const cases: [string, string][] = [
      [`/audit?after=garbage`, 'after'],
      [`/audit?after=${Buffer.from('{"t":1,"s":2}').toString('base64url')}`, 'after'],
      [`/audit?${WINDOW}&actor=ben&limit=5&after=${cursor}`, 'after'],
      [`/audit?actor=ana&limit=5&after=${cursor}`, 'after'],
      [`/audit?limit=0`, 'limit'],
      [`/audit?limit=501`, 'limit'],
      [`/audit?limit=abc`, 'limit'],
      [`/audit?start_time=${iso(BASE)}&end_time=${iso(BASE)}`, 'end_time'],
      [`/audit?start_time=${iso(BASE + 1000)}&end_time=${iso(BASE)}`, 'end_time'],
      [`/audit?start_time=yesterday`, 'start_time'],
      [`/audit?outcome=maybe`, 'outcome'],
      [`/audit?sort=asc`, ''],
    ];
    for (const [path, param] of cases) {
      const res = await s.call('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json.code).toBe('SVC-ADMIN-400');
      if (param)
        expect(
          res.json.invalid_params.map((p: { name: string }) => p.name),
          path,
        ).toContain(param);
    }
    // the same cursor with the same filters (and another limit) is fine
    const next = await s.call('GET', `/audit?${WINDOW}&actor=ana&limit=9&after=${cursor}`);
    expect(next.status).toBe(200);
  });

  it('answers 304 for an unchanged page and 200 once it changes', async () => {
    const path = `/audit?start_time=${iso(BASE)}&actor=eve`;
    const first = await s.call('GET', path);
    expect(first.headers.etag).toBeTruthy();
    const again = await s.call('GET', path, { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
    insertAuditBatch(s.server.db, [
      {
        actor: { subject: 'eve', role: 'auditor' },
        action: 'x.y',
        target: { type: 'x', id: null },
        outcome: 'success',
        status: 200,
        request_id: 'req_eve',
        source_ip: null,
      },
    ]);
    const changed = await s.call('GET', path, { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(changed.status).toBe(200);
    expect(changed.json.data).toHaveLength(1);
  });

  it('is readable by every role and needs a token', async () => {
    for (const role of ['it_admin', 'app_owner', 'auditor'] as const) {
      expect((await s.call('GET', `/audit?${WINDOW}&limit=1`, { role })).status).toBe(200);
    }
    expect((await s.call('GET', '/audit', { role: null })).status).toBe(401);
  });

  it('answers every filter combination from an index, without sorting the matches', () => {
    const names = ['start_time', 'end_time', 'actor', 'action', 'outcome'];
    const values: Record<string, string> = {
      start_time: iso(BASE),
      end_time: iso(BASE + 1),
      actor: 'ana',
      action: 'gateway.key.create',
      outcome: 'denied',
    };
    for (let mask = 0; mask < 64; mask++) {
      const q: Record<string, string> = {};
      names.forEach((n, i) => {
        if (mask & (1 << i)) q[n] = values[n];
      });
      for (const prefix of mask & 32 ? ['gateway.key.*', 'bulk.*'] : [undefined]) {
        if (prefix) q.action = prefix;
        // list pages (newest first) and export batches (oldest first, capped at the snapshot's seq)
        for (const fetch of [
          { dir: 'desc' as const },
          { dir: 'desc' as const, after: { t: BASE, s: 10 } },
          { dir: 'asc' as const, after: { t: BASE, s: 10 }, maxSeq: 1e6 },
        ]) {
          for (const plan of explainPage(s.server.db, auditSpec, normalizeFilters(auditSpec, q), {
            limit: 51,
            ...fetch,
          })) {
            expect(plan, JSON.stringify(q)).toMatch(/USING INDEX audit_/);
            expect(plan, JSON.stringify(q)).not.toMatch(/TEMP B-TREE/);
          }
        }
      }
    }
  });
});
