import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertAuditBatch, insertJournalBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import type { JournalRecord } from '../../src/server/governance/journal-writer.js';
import type { Statement } from '../../src/server/db/sqlite-driver.js';

const BASE = Date.parse('2026-05-01T00:00:00Z');
const ROWS = 5000;

let s: TestServer;
/** SQL of every statement run against a governance table */
let reads: string[] = [];

/** A call's answer, with the statements the server ran on a governance table meanwhile. */
async function reading(method: string, path: string) {
  reads = [];
  const res = await s.call(method, path, { role: 'auditor' });
  return { res, reads: reads.splice(0) };
}

beforeAll(async () => {
  s = await startTestServer();
  const audit: AuditSeed[] = [];
  const journal: JournalRecord[] = [];
  for (let i = 0; i < ROWS; i++) {
    audit.push({
      actor: { subject: `user${i % 7}`, role: 'app_owner' },
      action: 'routing.update',
      target: { type: 'routing', id: `w${i}` },
      outcome: 'success',
      status: 200,
      request_id: `req_${i}`,
      source_ip: '10.0.0.1',
      details: { i },
      at_ms: BASE + i,
    });
    journal.push({
      run_id: `run_${i >> 3}`,
      agent: 'coder',
      channel: 'slack',
      step: i % 8,
      tool: null,
      status: 'succeeded',
      started_ms: BASE + i,
      ended_ms: BASE + i + 5,
      input_tokens: i,
      output_tokens: i,
    });
  }
  insertAuditBatch(s.server.db, audit);
  insertJournalBatch(s.server.db, journal);

  // every way better-sqlite3 runs a statement, counted when it reads a governance table
  const proto = Object.getPrototypeOf(s.server.db.prepare('SELECT 1')) as Statement;
  for (const method of ['get', 'all', 'iterate'] as const) {
    const original = proto[method] as (...args: unknown[]) => unknown;
    vi.spyOn(proto, method).mockImplementation(function (this: Statement, ...args: unknown[]) {
      if (/\bFROM (audit|journal)\b/.test(this.source)) reads.push(this.source);
      return original.apply(this, args);
    } as never);
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await s?.close();
});

const exports = () =>
  s.server.db.prepare("SELECT count(*) FROM audit WHERE action LIKE '%.export'").pluck().get() as number;
const withoutTime = (disposition: unknown) => String(disposition).replace(/\d{8}T\d{6}Z/, '<time>');

describe.each([
  ['/audit/export', 'audit'],
  ['/agent/journal/export', 'journal'],
])('HEAD %s', (path, base) => {
  it.each(['csv', 'jsonl'])(
    'answers the headers a GET would (%s) without reading a row, and is not audited',
    async (format) => {
      const exportsBefore = exports();
      const { res: head, reads: headReads } = await reading('HEAD', `${path}?format=${format}`);
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(headReads).toEqual([]);
      expect(exports()).toBe(exportsBefore);

      const { res: get, reads: getReads } = await reading('GET', `${path}?format=${format}`);
      expect(get.status).toBe(200);
      expect(getReads.length).toBeGreaterThan(0); // control: the GET does read the trail
      expect(get.text.length).toBeGreaterThan(10_000);
      expect(head.headers['content-type']).toBe(get.headers['content-type']);
      expect(withoutTime(head.headers['content-disposition'])).toBe(withoutTime(get.headers['content-disposition']));
      expect(withoutTime(head.headers['content-disposition'])).toBe(`attachment; filename="${base}-<time>.${format}"`);
      expect(exports()).toBe(exportsBefore + 1);
    },
  );
});
