import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertAuditBatch, insertJournalBatch } from '../../src/server/governance/bulk.js';
import { recordJournal, type JournalRecord } from '../../src/server/governance/journal-writer.js';
import { journalSpec } from '../../src/server/governance/agent-journal.js';
import { normalizeFilters } from '../../src/server/governance/filters.js';
import { explainPage } from '../../src/server/governance/keyset.js';

const BASE = Date.parse('2026-04-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const AGENTS = ['triage', 'summarizer', 'coder'];
const CHANNELS = ['slack', 'email'];
const STATUSES = ['succeeded', 'succeeded', 'failed', 'cancelled', 'running'] as const;

interface Seeded extends JournalRecord {
  id: string;
  seq: number;
}
let s: TestServer;
const seeded: Seeded[] = [];
const newestFirst = (rows: Seeded[]) =>
  [...rows].sort((a, b) => b.started_ms - a.started_ms || b.seq - a.seq).map((r) => r.id);

async function allPages(query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const res = await s.call(
      'GET',
      `/agent/journal?${query}&limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`,
    );
    expect(res.status).toBe(200);
    ids.push(...res.json.data.map((e: { id: string }) => e.id));
    if (!res.json.has_more) {
      expect(res.json.next_cursor).toBeNull();
      return ids;
    }
    after = res.json.next_cursor;
  }
  throw new Error('paging did not end');
}

beforeAll(async () => {
  s = await startTestServer();
  const rows: (JournalRecord & { id: string })[] = [];
  for (let i = 0; i < 120; i++) {
    const status = STATUSES[i % 5];
    // steps of a run start together sometimes (equal started_ms) and are written after they end
    const started_ms = BASE + Math.floor(i / 4) * 30_000 + (i % 4 === 3 ? 0 : (i % 4) * 1000);
    rows.push({
      id: `jrn_seed${String(i).padStart(4, '0')}`,
      run_id: `run_${Math.floor(i / 4)}`,
      agent: AGENTS[i % 3],
      channel: CHANNELS[i % 2],
      step: i % 4,
      tool: i % 3 === 0 ? null : 'search',
      status,
      started_ms,
      ended_ms: status === 'running' ? null : started_ms + 1500 + i,
      input_tokens: 100 + i,
      output_tokens: 10 * i,
    });
  }
  // written newest first on purpose: the list orders by start time, not by insertion
  insertJournalBatch(s.server.db, [...rows].reverse());
  const seqs = new Map(
    (s.server.db.prepare('SELECT id, seq FROM journal').all() as { id: string; seq: number }[]).map((r) => [
      r.id,
      r.seq,
    ]),
  );
  for (const r of rows) seeded.push({ ...r, seq: seqs.get(r.id)! });
});
afterAll(async () => {
  await s.close();
});

const WINDOW = `start_time=${iso(BASE)}&end_time=${iso(BASE + 86_400_000)}`;

describe('GET /agent/journal', () => {
  it('lists most recently started first, in the contract shape', async () => {
    const res = await s.call('GET', `/agent/journal?${WINDOW}&limit=500`);
    expect(res.status).toBe(200);
    expect(res.json.data.map((e: { id: string }) => e.id)).toEqual(newestFirst(seeded));
    const e = res.json.data.find((x: { id: string }) => x.id === 'jrn_seed0005');
    expect(e).toEqual({
      id: 'jrn_seed0005',
      run_id: 'run_1',
      agent: 'coder',
      channel: 'email',
      step: 1,
      tool: 'search',
      status: 'succeeded',
      started_at: iso(BASE + 31_000).replace('.000Z', 'Z'),
      ended_at: iso(BASE + 31_000 + 1505).replace('.000Z', 'Z'),
      duration_ms: 1505,
      input_tokens: 105,
      output_tokens: 50,
      error: null,
    });
    const running = res.json.data.find((x: { id: string }) => x.id === 'jrn_seed0004');
    expect(running).toMatchObject({ status: 'running', ended_at: null, duration_ms: null, tool: 'search' });
    expect(res.json.data.find((x: { id: string }) => x.id === 'jrn_seed0003').tool).toBeNull();
  });

  it('pages through every entry exactly once', async () => {
    for (const limit of [1, 7, 50]) expect(await allPages(WINDOW, limit)).toEqual(newestFirst(seeded));
  });

  it('filters by agent, channel, run_id and status, alone and together', async () => {
    expect(await allPages(`${WINDOW}&agent=coder`, 9)).toEqual(newestFirst(seeded.filter((r) => r.agent === 'coder')));
    expect(await allPages(`${WINDOW}&channel=slack`, 9)).toEqual(
      newestFirst(seeded.filter((r) => r.channel === 'slack')),
    );
    expect(await allPages(`${WINDOW}&run_id=run_7`, 2)).toEqual(
      newestFirst(seeded.filter((r) => r.run_id === 'run_7')),
    );
    expect(await allPages(`${WINDOW}&status=failed`, 5)).toEqual(
      newestFirst(seeded.filter((r) => r.status === 'failed')),
    );
    const combo = seeded.filter((r) => r.agent === 'triage' && r.channel === 'email' && r.status === 'succeeded');
    expect(combo.length).toBeGreaterThan(0);
    expect(await allPages(`${WINDOW}&agent=triage&channel=email&status=succeeded`, 2)).toEqual(newestFirst(combo));
  });

  it('applies start_time inclusive and end_time exclusive on started_at', async () => {
    const from = BASE + 60_000; // run_2 starts exactly here
    const to = BASE + 150_000; // run_5 starts exactly here
    expect(seeded.some((r) => r.started_ms === from) && seeded.some((r) => r.started_ms === to)).toBe(true);
    const res = await s.call('GET', `/agent/journal?start_time=${iso(from)}&end_time=${iso(to)}&limit=500`);
    expect(res.json.data.map((e: { id: string }) => e.id)).toEqual(
      newestFirst(seeded.filter((r) => r.started_ms >= from && r.started_ms < to)),
    );
  });

  it('answers 400 for a bad cursor, a cursor of other filters, bad limits, ranges and parameters', async () => {
    const page = await s.call('GET', `/agent/journal?${WINDOW}&agent=coder&limit=3`);
    const cursor = encodeURIComponent(page.json.next_cursor);
    const seed = {
      actor: { subject: 'x', role: null },
      action: 'x.y',
      target: { type: 'x', id: null },
      outcome: 'success',
      status: 200,
      request_id: 'req_x',
      source_ip: null,
    } as const;
    insertAuditBatch(s.server.db, [seed, seed]);
    const audit = await s.call('GET', '/audit?limit=1');
    expect(audit.json.next_cursor).toBeTruthy();
    const auditCursor = encodeURIComponent(audit.json.next_cursor);
    for (const path of [
      `/agent/journal?limit=1&after=${auditCursor}`,
      '/agent/journal?after=not-a-cursor',
      `/agent/journal?${WINDOW}&agent=triage&limit=3&after=${cursor}`,
      `/agent/journal?${WINDOW}&agent=coder&status=failed&limit=3&after=${cursor}`,
      '/agent/journal?limit=0',
      '/agent/journal?limit=501',
      `/agent/journal?start_time=${iso(BASE + 1)}&end_time=${iso(BASE)}`,
      '/agent/journal?status=done',
      '/agent/journal?prompt=hello',
    ]) {
      const res = await s.call('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.json.code).toBe('SVC-ADMIN-400');
    }
    expect((await s.call('GET', `/agent/journal?${WINDOW}&agent=coder&limit=3&after=${cursor}`)).status).toBe(200);
  });

  it('answers 304 while the page is unchanged; a new entry changes it', async () => {
    const path = '/agent/journal?agent=new-agent';
    const first = await s.call('GET', path);
    expect(first.json.data).toEqual([]);
    expect((await s.call('GET', path, { headers: { 'if-none-match': String(first.headers.etag) } })).status).toBe(304);
    const id = recordJournal(s.server.db, {
      run_id: 'run_live',
      agent: 'new-agent',
      channel: 'web',
      step: 0,
      tool: 'sql',
      status: 'running',
      started_ms: Date.now(),
      input_tokens: 5,
      output_tokens: 0,
    });
    expect(id).toMatch(/^jrn_/);
    const changed = await s.call('GET', path, { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(changed.status).toBe(200);
    expect(changed.json.data).toMatchObject([{ id, agent: 'new-agent', status: 'running', ended_at: null }]);
  });

  it('recordJournal refuses entries the contract could not show, writing nothing', () => {
    const ok: JournalRecord = {
      run_id: 'r',
      agent: 'a',
      channel: 'c',
      step: 0,
      status: 'succeeded',
      started_ms: BASE,
      ended_ms: BASE + 1,
      input_tokens: 0,
      output_tokens: 0,
    };
    const count = () => s.server.db.prepare('SELECT count(*) FROM journal').pluck().get();
    const before = count();
    for (const bad of [
      { input_tokens: -1 },
      { step: 1.5 },
      { status: 'done' },
      { ended_ms: BASE - 1 },
      { agent: '' },
      { tool: 'x'.repeat(201) },
    ]) {
      expect(() => recordJournal(s.server.db, { ...ok, ...bad } as JournalRecord)).toThrow(TypeError);
    }
    expect(() => insertJournalBatch(s.server.db, [ok, { ...ok, input_tokens: -1 }])).toThrow(TypeError);
    expect(count()).toBe(before);
  });

  it('answers every filter combination from an index, without sorting the matches', () => {
    const names = ['start_time', 'end_time', 'agent', 'channel', 'run_id', 'status'];
    const values: Record<string, string> = {
      start_time: iso(BASE),
      end_time: iso(BASE + 1),
      agent: 'coder',
      channel: 'slack',
      run_id: 'run_1',
      status: 'failed',
    };
    for (let mask = 0; mask < 64; mask++) {
      const q: Record<string, string> = {};
      names.forEach((n, i) => {
        if (mask & (1 << i)) q[n] = values[n];
      });
      for (const fetch of [
        { dir: 'desc' as const, after: { t: BASE, s: 3 } },
        { dir: 'asc' as const, maxSeq: 1e6 },
      ]) {
        for (const plan of explainPage(s.server.db, journalSpec, normalizeFilters(journalSpec, q), {
          limit: 51,
          ...fetch,
        })) {
          expect(plan, JSON.stringify(q)).toMatch(/USING INDEX journal_/);
          expect(plan, JSON.stringify(q)).not.toMatch(/TEMP B-TREE/);
        }
      }
    }
  });
});
