import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { rmSync } from 'node:fs';
import { openDatabase, type Db } from '../../src/server/db/open.js';
import { auditCsvColumns } from '../../src/server/governance/audit-trail.js';
import { journalCsvColumns } from '../../src/server/governance/agent-journal.js';
import { csvRecordEncoder, type CsvColumn } from '../../src/server/governance/csv.js';
import { fastCsv } from '../../src/server/governance/csv-fast.js';
import { tempDir } from '../helpers/fixtures.js';

/**
 * The export's fast path (records assembled by SQLite) must write byte for byte what the generic
 * encoder writes from the plain values, or leave the row to it: a NULL record, or one that
 * vouches() refuses, alone or within a batch.
 */
let dir: string;
let db: Db;
beforeAll(() => {
  dir = tempDir('aa-csv-fast');
  db = openDatabase(dir);
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Mostly ordinary text, sometimes rich in what CSV and spreadsheets care about. */
const plainText = fc.stringMatching(/^([a-zé😀0-9][a-z0-9._:@=+ -]{0,7})?$/u);
const trickyText = fc.string({
  unit: fc.constantFrom('a', ',', '"', '\r', '\n', '=', '+', '-', '@', '\t', "'", '{', '}', '\u0000'),
  maxLength: 4,
});
const text = fc.oneof(
  { arbitrary: plainText, weight: 40 },
  { arbitrary: trickyText, weight: 1 },
  { arbitrary: fc.constantFrom('a,b', ',', 'x, y'), weight: 1 },
);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
/** what an INTEGER column can hold: integers mostly, but SQLite also keeps reals and text there */
const integerish = fc.oneof(
  { arbitrary: fc.integer({ min: -1000, max: 100_000 }), weight: 20 },
  { arbitrary: fc.constantFrom(200.5, -0.25, 1e21, 'x', '12'), weight: 1 },
);
const details = fc.oneof(
  {
    arbitrary: fc
      .dictionary(text, fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 3 })
      .map((o) => JSON.stringify(o)),
    weight: 8,
  },
  fc.constantFrom('{}', '[1,2]', '5', '"s"', 'null', 'not json', ' {"a":1}', '{"a": 1}', '{"a":"x,\\"y"}'),
);

function compare(table: string, columns: CsvColumn[]): void {
  const fast = fastCsv(columns);
  const generic = csvRecordEncoder(columns, 0);
  const records = db.prepare(`SELECT ${fast.record} FROM ${table} ORDER BY seq`).pluck().all() as (string | null)[];
  const plainRows = db
    .prepare(`SELECT ${columns.map((c) => c.sql).join(', ')} FROM ${table} ORDER BY seq`)
    .raw(true)
    .all() as unknown[][];
  expect(records.length).toBe(plainRows.length);
  const vouched = records.map((record, i) => {
    if (record === null || !fast.vouches(record, 1)) return false;
    fastTaken++;
    expect(record).toBe(generic(plainRows[i]));
    return true;
  });
  // a batch as SQLite joins it (NULLs left out) is vouched for exactly when every record in it is
  const joined = db
    .prepare(
      `SELECT group_concat(record, ''), count(*) FROM (SELECT ${fast.record} AS record FROM ${table} ORDER BY seq LIMIT -1)`,
    )
    .raw(true)
    .get() as [string | null, number];
  const all = vouched.every(Boolean);
  expect(joined[0] !== null && fast.vouches(joined[0], joined[1])).toBe(all);
  if (all) {
    batchesTaken++;
    expect(joined[0]).toBe(plainRows.map(generic).join(''));
  }
  compared += records.length;
}
let fastTaken = 0;
let compared = 0;
let batchesTaken = 0;

describe('fast CSV records', () => {
  it('match the generic encoder for audit rows', () => {
    const insert =
      db.prepare(`INSERT INTO audit (id, at, at_ms, actor_subject, actor_role, action, target_type, target_id, outcome, status, request_id, source_ip, details)
      VALUES (?, ?, 0, ?, ?, ?, ?, ?, 'success', ?, ?, ?, ?)`);
    const row = fc.tuple(
      text,
      text,
      text,
      maybe(fc.constantFrom('it_admin', 'auditor')),
      text,
      text,
      maybe(text),
      integerish,
      text,
      maybe(text),
      details,
    );
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 20 }), (rows) => {
        db.exec('DELETE FROM audit');
        rows.forEach((r, i) => insert.run(`${r[0]}~${i}`, ...r.slice(1)));
        compare('audit', auditCsvColumns);
      }),
      { numRuns: 200 },
    );
  });

  it('match the generic encoder for journal rows', () => {
    const insert =
      db.prepare(`INSERT INTO journal (id, run_id, agent, channel, step, tool, status, started_at, started_ms, ended_at, duration_ms, input_tokens, output_tokens)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`);
    const row = fc.tuple(
      text,
      text,
      text,
      text,
      integerish,
      maybe(text),
      text,
      text,
      maybe(text),
      maybe(integerish),
      integerish,
      integerish,
    );
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 20 }), (rows) => {
        db.exec('DELETE FROM journal');
        rows.forEach((r, i) => insert.run(`${r[0]}~${i}`, ...r.slice(1)));
        compare('journal', journalCsvColumns);
      }),
      { numRuns: 200 },
    );
  });

  it('took the fast path for a fair share of those rows (so the comparison was not vacuous)', () => {
    expect(fastTaken).toBeGreaterThan(compared * 0.1);
    expect(batchesTaken).toBeGreaterThan(20);
  });

  it('assembles ordinary rows in SQLite, so the fast path is the one taken', () => {
    const ZEROS = '0'.repeat(64);
    const HASH = 'ab'.repeat(32);
    db.exec('DELETE FROM audit');
    db.prepare(
      `INSERT INTO audit (seq, id, at, at_ms, actor_subject, actor_role, action, target_type, target_id, outcome, status, request_id, source_ip, details, prev_hash, hash)
      VALUES (1, 'aud_1', '2026-11-21T09:30:00Z', 0, 'alice@example.org', 'it_admin', 'gateway.key.create', 'gateway_key', 'key_1', 'success', 201, 'req_1', '10.0.0.1', '{"name":"a","quota":{"requests_per_minute":60}}', ?, ?)`,
    ).run(ZEROS, HASH);
    const fast = fastCsv(auditCsvColumns);
    const record = db.prepare(`SELECT ${fast.record} FROM audit`).pluck().get() as string;
    expect(record).toBe(
      `aud_1,2026-11-21T09:30:00Z,alice@example.org,it_admin,gateway.key.create,gateway_key,key_1,success,201,req_1,10.0.0.1,"{""name"":""a"",""quota"":{""requests_per_minute"":60}}",,1,${ZEROS},${HASH}\r\n`,
    );
    expect(fast.vouches(record, 1)).toBe(true);
    expect(fast.vouches(record + record, 2)).toBe(true);
    // one record short, one too many, or a record cut: not vouched for
    expect(fast.vouches(record + record, 1)).toBe(false);
    expect(fast.vouches(record, 2)).toBe(false);
    expect(fast.vouches(record.slice(0, -3), 1)).toBe(false);
  });
});
