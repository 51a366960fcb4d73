import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { request } from 'undici';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertAuditBatch, insertJournalBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import type { JournalRecord } from '../../src/server/governance/journal-writer.js';
import { csvCell } from '../../src/server/governance/csv.js';
import { AUDIT_CSV_HEADER } from '../helpers/audit-csv.js';

const BASE = Date.parse('2026-05-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const WINDOW = `start_time=${iso(BASE)}&end_time=${iso(BASE + 86_400_000)}`;
const JOURNAL_HEADER = [
  'id',
  'run_id',
  'agent',
  'channel',
  'step',
  'tool',
  'status',
  'started_at',
  'ended_at',
  'duration_ms',
  'input_tokens',
  'output_tokens',
  'error.code',
  'error.message',
];

let s: TestServer;

const tricky: AuditSeed[] = [
  {
    actor: { subject: '=HYPERLINK("http://x","y")', role: 'it_admin' },
    action: 'gateway.key.create',
    target: { type: 'gateway.key', id: '+1', name: '=cmd|calc, "key"' },
    outcome: 'success',
    status: 201,
    request_id: '@sum(A1)',
    source_ip: null,
    details: { name: '-2+3' },
  },
  {
    actor: { subject: 'comma, "quoted" name', role: null },
    action: 'channel.update',
    target: { type: 'channel', id: 'line1\nline2\r\nline3' },
    outcome: 'failed',
    status: -5,
    request_id: '\tTAB',
    source_ip: '10.0.0.7',
    details: { text: 'a,b "c"\r\nd', list: [1, 2] },
  },
  {
    actor: { subject: 'plain', role: 'auditor' },
    action: 'model.activate',
    target: { type: 'model', id: '\rcr' },
    outcome: 'denied',
    status: 403,
    request_id: 'req_plain',
    source_ip: '::1',
    details: {},
  },
];

/** What the list shows for the window, oldest first (the export's order). */
async function listedOldestFirst(path: string, query: string) {
  const res = await s.call('GET', `${path}?${query}&limit=500`);
  expect(res.status).toBe(200);
  expect(res.json.has_more).toBe(false);
  return [...res.json.data].reverse();
}

const rowsOf = (csv: string): string[][] => parse(csv, { relax_quotes: false });

/** The entry as the CSV flattens it, to compare with what csv-parse reads back. */
const auditCells = (e: Record<string, any>) =>
  [
    e.id,
    e.at,
    e.actor.subject,
    e.actor.role,
    e.action,
    e.target.type,
    e.target.id,
    e.outcome,
    e.status,
    e.request_id,
    e.source_ip,
    JSON.stringify(e.details),
    e.target.name,
    e.seq,
    e.prev_hash,
    e.hash,
  ].map((v) => (v === null ? '' : typeof v === 'number' ? String(v) : /^[=+\-@\t\r]/.test(v) ? `'${v}` : v));

beforeAll(async () => {
  s = await startTestServer();
  const rows: AuditSeed[] = tricky.map((r, i) => ({ ...r, at_ms: BASE + i * 1000 }));
  for (let i = 0; i < 30; i++) {
    rows.push({
      actor: { subject: i % 2 ? 'ana' : 'ben', role: 'app_owner' },
      action: i % 3 ? 'gateway.key.revoke' : 'routing.update',
      target: { type: 'gateway.key', id: `key_${i}` },
      outcome: 'success',
      status: 200,
      request_id: `req_${i}`,
      source_ip: '10.0.0.1',
      details: { i },
      at_ms: BASE + 10_000 + Math.floor(i / 2) * 1000,
    });
  }
  insertAuditBatch(s.server.db, rows);
  const journal: JournalRecord[] = [];
  for (let i = 0; i < 25; i++) {
    journal.push({
      run_id: `run_${i >> 2}`,
      agent: i % 2 ? '-agent' : 'coder',
      channel: 'slack',
      step: i % 4,
      tool: i % 3 ? '=cmd' : null,
      status: i === 24 ? 'running' : i === 7 ? 'failed' : 'succeeded',
      started_ms: BASE + i * 1000,
      ended_ms: i === 24 ? null : BASE + i * 1000 + 250,
      input_tokens: i,
      output_tokens: 2 * i,
      error: i === 7 ? { code: 'tool_error', message: '=cmd failed: the service answered "500", retry later' } : null,
    });
  }
  insertJournalBatch(s.server.db, journal);
});
afterAll(async () => {
  await s.close();
});

describe('csv cells', () => {
  it('quotes per RFC 4180 and neutralises formulas in text only', () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('-5')).toBe("'-5");
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell('@a,b')).toBe(`"'@a,b"`);
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('\r')).toBe(`"'\r"`);
    expect(csvCell(null)).toBe('');
    expect(csvCell('a-b=c')).toBe('a-b=c');
  });
});

describe('GET /audit/export', () => {
  it('streams CSV with a header row and exactly the listed rows, oldest first', async () => {
    const res = await s.call('GET', `/audit/export?${WINDOW}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="audit-\d{8}T\d{6}Z\.csv"$/);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.text.startsWith(`${AUDIT_CSV_HEADER.join(',')}\r\n`)).toBe(true);
    expect(res.text.endsWith('\r\n')).toBe(true);
    const [header, ...records] = rowsOf(res.text);
    expect(header).toEqual(AUDIT_CSV_HEADER);
    const listed = await listedOldestFirst('/audit', WINDOW);
    expect(listed).toHaveLength(33);
    expect(records).toEqual(listed.map(auditCells));
  });

  it('neutralises formula cells and round-trips commas, quotes and line breaks', async () => {
    const res = await s.call('GET', `/audit/export?${WINDOW}&action=gateway.key.create`);
    const [, first] = rowsOf(res.text);
    expect(first[2]).toBe(`'=HYPERLINK("http://x","y")`);
    expect(first[6]).toBe("'+1");
    expect(first[9]).toBe("'@sum(A1)");
    expect(first[8]).toBe('201');
    expect(JSON.parse(first[11])).toEqual({ name: '-2+3' });
    expect(first[12]).toBe(`'=cmd|calc, "key"`);
    const [, second] = rowsOf((await s.call('GET', `/audit/export?${WINDOW}&action=channel.update`)).text);
    expect(second[2]).toBe('comma, "quoted" name');
    expect(second[3]).toBe('');
    expect(second[6]).toBe('line1\nline2\r\nline3');
    expect(second[8]).toBe('-5'); // a number, not text: no prefix
    expect(second[9]).toBe("'\tTAB");
    expect(JSON.parse(second[11])).toEqual({ text: 'a,b "c"\r\nd', list: [1, 2] });
    expect(second[12]).toBe(''); // no name
    const [, third] = rowsOf((await s.call('GET', `/audit/export?${WINDOW}&action=model.activate`)).text);
    expect(third[6]).toBe("'\rcr");
  });

  it('streams JSON Lines in the AuditEntry shape with the same filters as the list', async () => {
    const query = `${WINDOW}&actor=ana&action=gateway.key.*`;
    const res = await s.call('GET', `/audit/export?format=jsonl&${query}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    expect(res.headers['content-disposition']).toMatch(/filename="audit-\d{8}T\d{6}Z\.jsonl"/);
    expect(res.text.endsWith('\n')).toBe(true);
    const lines = res.text
      .slice(0, -1)
      .split('\n')
      .map((l) => JSON.parse(l));
    const listed = await listedOldestFirst('/audit', query);
    expect(listed.length).toBeGreaterThan(5);
    expect(lines).toEqual(listed);
    expect(lines.every((e) => e.actor.subject === 'ana' && e.action.startsWith('gateway.key.'))).toBe(true);
  });

  it('is allowed for an auditor and is itself audited before the file is read', async () => {
    // a change since the last export: this one signs its own head
    const body = { channels: [{ id: 'chan_web', enabled: true }] };
    expect((await s.call('PUT', '/channels', { body })).status).toBe(200);
    const before = Date.now();
    const exported = () =>
      s.call('GET', `/audit/export?format=jsonl&start_time=${iso(before - 1000)}`, { role: 'auditor' });
    const res = await exported();
    expect(res.status).toBe(200);
    const linesOf = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    const lines = linesOf(res.text);
    // the export's own entry is written first, so an export that covers "now" ends with it
    expect(lines.at(-2)).toMatchObject({ action: 'channel.update' });
    expect(lines.at(-1)).toMatchObject({
      actor: { subject: 'aude-auditor', role: 'auditor' },
      action: 'audit.export',
      target: { type: 'audit', id: null },
      outcome: 'success',
      status: 200,
      details: { format: 'jsonl', filters: { start_time: iso(before - 1000) } },
    });
    expect(lines.at(-1).request_id).toBe(res.headers['x-request-id']);

    // nothing but exports since: the next one ends at the same checkpoint, without its own entry, which is audited
    const again = await exported();
    expect(again.headers['audit-checkpoint']).toBe(res.headers['audit-checkpoint']);
    expect(linesOf(again.text)).toEqual(lines);
    const own = await s.call('GET', `/audit?request_id=${String(again.headers['x-request-id'])}`);
    expect(own.json.data).toMatchObject([{ action: 'audit.export', seq: lines.at(-1).seq + 1 }]);
  });

  it('answers 400 for a bad format, range or parameter, and writes no audit entry', async () => {
    const count = () => s.server.db.prepare("SELECT count(*) FROM audit WHERE action = 'audit.export'").pluck().get();
    const before = count();
    for (const path of [
      '/audit/export?format=xlsx',
      `/audit/export?start_time=${iso(BASE)}&end_time=${iso(BASE)}`,
      '/audit/export?limit=5',
      '/audit/export?after=x',
      '/audit/export?outcome=meh',
    ]) {
      const res = await s.call('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.json.code).toBe('SVC-ADMIN-400');
    }
    expect(count()).toBe(before);
    expect((await s.call('GET', '/audit/export', { role: null })).status).toBe(401);
  });
});

describe('GET /agent/journal/export', () => {
  it('streams CSV and JSONL matching the list, numbers as numbers, nulls empty', async () => {
    const listed = await listedOldestFirst('/agent/journal', WINDOW);
    expect(listed).toHaveLength(25);
    const csv = await s.call('GET', `/agent/journal/export?${WINDOW}`, { role: 'auditor' });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="journal-\d{8}T\d{6}Z\.csv"$/);
    const [header, ...records] = rowsOf(csv.text);
    expect(header).toEqual(JOURNAL_HEADER);
    expect(records).toEqual(
      listed.map((e) =>
        JOURNAL_HEADER.map((k) => {
          const v = k.startsWith('error.') ? (e.error?.[k.slice('error.'.length)] ?? null) : e[k];
          return v === null ? '' : typeof v === 'number' ? String(v) : /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
        }),
      ),
    );
    expect(records[1][2]).toBe("'-agent");
    expect(records[1][5]).toBe("'=cmd");
    expect(records[0][5]).toBe('');
    expect(records[24][8]).toBe('');
    expect(records[7].slice(12)).toEqual(['tool_error', `'=cmd failed: the service answered "500", retry later`]);
    expect(records[6].slice(12)).toEqual(['', '']);

    const jsonl = await s.call('GET', `/agent/journal/export?format=jsonl&${WINDOW}&agent=coder`);
    expect(jsonl.headers['content-type']).toBe('application/x-ndjson');
    const lines = jsonl.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(await listedOldestFirst('/agent/journal', `${WINDOW}&agent=coder`));
    const audited = s.server.db
      .prepare("SELECT actor_subject, details FROM audit WHERE action = 'journal.export' ORDER BY seq")
      .all() as { actor_subject: string; details: string }[];
    expect(audited.map((a) => a.actor_subject)).toEqual(['aude-auditor', 'alice-admin']);
    expect(JSON.parse(audited[1].details)).toEqual({
      format: 'jsonl',
      filters: { start_time: iso(BASE), end_time: iso(BASE + 86_400_000), agent: 'coder' },
    });
  });
});

describe('large exports', () => {
  it('writes the same CSV through every path, batch after batch, whatever order the rows were written in', async () => {
    const start = Date.parse('2026-07-01T00:00:00Z');
    // written newest first, so seq runs against time; rows needing quotes or a guard only in the
    // middle, so that batches of 500 are joined by SQLite before and after it, row by row within
    const rows: AuditSeed[] = [];
    for (let i = 1199; i >= 0; i--) {
      const odd = i >= 600 && i < 800 && i % 97 === 5;
      rows.push({
        actor: { subject: odd ? `x, "y" ${i}` : `svc-${i % 5}`, role: i % 4 ? 'it_admin' : null },
        action: `multi.${i % 3 ? 'a' : 'b'}`,
        target: { type: 'multi', id: odd ? `=${i}` : `t${i}` },
        outcome: 'success',
        status: 200,
        request_id: `req_m${i}`,
        source_ip: i % 2 ? '10.0.0.1' : null,
        details: i === 700 ? {} : { i, note: 'a,"b"' },
        at_ms: start + Math.floor(i / 3) * 1000,
      });
    }
    insertAuditBatch(s.server.db, rows);
    const window = `start_time=${iso(start)}&end_time=${iso(start + 400_000)}`;
    const csv = async (query: string) => {
      const res = await s.call('GET', `/audit/export?${query}`);
      expect(res.status).toBe(200);
      return res.text;
    };
    const expected = async (query: string) => {
      const res = await s.call('GET', `/audit/export?format=jsonl&${query}`);
      return res.text
        .trim()
        .split('\n')
        .map((l) => auditCells(JSON.parse(l)));
    };
    // one arm: SQLite joins each batch; a prefix matching two actions: rows merged one by one
    const whole = await csv(window);
    expect(await csv(`${window}&action=multi.*`)).toBe(whole);
    const [header, ...records] = rowsOf(whole);
    expect(header).toEqual(AUDIT_CSV_HEADER);
    expect(records).toHaveLength(1200);
    expect(records).toEqual(await expected(window));
    // in the order written (seq, as the audit chain reads), not time order
    const seqs = records.map((r) => Number(r[13]));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));
    expect(records.slice(0, 4).map((r) => r[6])).toEqual(['t1199', 't1198', 't1197', 't1196']);
    expect(records.filter((r) => r[2].startsWith('x, "y"')).map((r) => r[6])).toEqual(["'=781", "'=684"]);
    expect(records.filter((r) => r[11] === '{}')).toHaveLength(1);
    const [, ...onlyB] = rowsOf(await csv(`${window}&action=multi.b`));
    expect(onlyB).toEqual(await expected(`${window}&action=multi.b`));
    expect(onlyB).toHaveLength(400);
  });

  it('streams 20,000 rows in batches with bounded memory', async () => {
    const start = Date.parse('2026-06-01T00:00:00Z');
    const rows = function* (): Generator<AuditSeed> {
      for (let i = 0; i < 20_000; i++) {
        yield {
          actor: { subject: `bulk-${i % 7}`, role: 'it_admin' },
          action: `bulk.${['a', 'b', 'c'][i % 3]}`,
          target: { type: 'bulk', id: `t${i}` },
          outcome: 'success',
          status: 200,
          request_id: `req_b${i}`,
          source_ip: null,
          details: { i },
          at_ms: start + i,
        };
      }
    };
    expect(insertAuditBatch(s.server.db, rows())).toBe(20_000);
    const window = `start_time=${iso(start)}&end_time=${iso(start + 20_000)}`;
    for (const [query, expected] of [
      [window, 20_000],
      [`${window}&action=bulk.*`, 20_000],
      [`${window}&action=bulk.b`, 6667],
    ] as const) {
      global.gc?.();
      const heapBefore = process.memoryUsage().heapUsed;
      let peak = 0;
      const res = await request(`${s.url}/v1/admin/audit/export?format=jsonl&${query}`, {
        headers: { authorization: `Bearer ${s.tokens.auditor}` },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['transfer-encoding']).toBe('chunked');
      let count = 0;
      let lastI = -1;
      let rest = '';
      let ordered = true;
      for await (const chunk of res.body) {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop()!;
        for (const l of lines) {
          const { i } = JSON.parse(l).details as { i: number };
          if (i <= lastI) ordered = false;
          lastI = i;
          count++;
        }
        peak = Math.max(peak, process.memoryUsage().heapUsed - heapBefore);
      }
      expect(rest).toBe('');
      expect(count, query).toBe(expected);
      expect(ordered).toBe(true);
      // the whole file is several MB as text; streaming keeps the server far below holding it
      expect(peak).toBeLessThan(64 * 1024 * 1024);
    }
  });
});
