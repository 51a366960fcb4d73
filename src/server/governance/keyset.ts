import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open.js';
import type { Key } from './cursor.js';
import type { Filters, TableSpec } from './filters.js';

export type Row = Record<string, unknown> & { seq: number };
export type Direction = 'desc' | 'asc';

/**
 * One index-ordered stream of rows. A prefix filter (gateway.key.*) becomes one arm per distinct
 * matching value, each an exact match that its (column, time) index returns already in order; the
 * arms are merged. Sorting the union instead would read every matching row for each page.
 */
interface Arm { equals: Record<string, string>; substrPrefix?: { column: string; value: string } }

/** Beyond this many distinct values a prefix is scanned in time order and checked row by row. */
const MAX_ARMS = 32;

const cache = new WeakMap<Db, Map<string, Statement>>();

function cached(db: Db, key: string, sql: () => string): Statement {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let st = m.get(key);
  if (!st) m.set(key, (st = db.prepare(sql())));
  return st;
}

/** Distinct values of `column` starting with `prefix`, in index order; null when there are too many. */
function distinctWithPrefix(db: Db, spec: TableSpec, column: string, prefix: string): string[] | null {
  const first = cached(db, `${spec.table}|first|${column}`, () =>
    `SELECT ${column} FROM ${spec.table} WHERE ${column} >= ? ORDER BY ${column} LIMIT 1`).pluck();
  const next = cached(db, `${spec.table}|next|${column}`, () =>
    `SELECT ${column} FROM ${spec.table} WHERE ${column} > ? ORDER BY ${column} LIMIT 1`).pluck();
  const out: string[] = [];
  // Values sharing a prefix are contiguous in BINARY (UTF-8 byte) order, so stop at the first miss.
  for (let v = first.get(prefix) as string | undefined; v !== undefined && v.startsWith(prefix); v = next.get(v) as string | undefined) {
    if (out.length === MAX_ARMS) return null;
    out.push(v);
  }
  return out;
}

function armsFor(db: Db, spec: TableSpec, f: Filters): Arm[] {
  if (!f.prefix) return [{ equals: f.equals }];
  const { column, value } = f.prefix;
  const values = distinctWithPrefix(db, spec, column, value);
  if (values === null) return [{ equals: f.equals, substrPrefix: f.prefix }];
  return values.map((v) => ({ equals: { ...f.equals, [column]: v } }));
}

interface Fetch { after?: Key; limit: number; dir: Direction; maxSeq?: number }

function armStatement(db: Db, spec: TableSpec, f: Filters, arm: Arm, o: Fetch): Statement {
  const eqColumns = spec.equals.map((e) => e.column).filter((c) => arm.equals[c] !== undefined);
  const shape = [spec.table, o.dir, eqColumns.join(','), f.startMs !== undefined, f.endMs !== undefined,
    o.after !== undefined, o.maxSeq !== undefined, arm.substrPrefix?.column ?? ''].join('|');
  return cached(db, shape, () => {
    const t = spec.timeColumn;
    // The first equality drives the scan; a unary + keeps the planner off the other columns' indexes.
    const where = eqColumns.map((c, i) => `${i === 0 ? '' : '+'}${c} = @eq_${c}`);
    if (arm.substrPrefix) where.push(`substr(${arm.substrPrefix.column}, 1, @prefix_len) = @prefix`);
    if (f.startMs !== undefined) where.push(`${t} >= @start`);
    if (f.endMs !== undefined) where.push(`${t} < @end`);
    if (o.after) where.push(`(${t}, seq) ${o.dir === 'desc' ? '<' : '>'} (@after_t, @after_s)`);
    if (o.maxSeq !== undefined) where.push('+seq <= @max_seq');
    const d = o.dir.toUpperCase();
    return `SELECT ${spec.select} FROM ${spec.table}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${t} ${d}, seq ${d} LIMIT @limit`;
  });
}

function armParams(f: Filters, arm: Arm, o: Fetch): Record<string, unknown> {
  const params: Record<string, unknown> = { limit: o.limit };
  for (const [c, v] of Object.entries(arm.equals)) params[`eq_${c}`] = v;
  if (arm.substrPrefix) {
    params.prefix = arm.substrPrefix.value;
    params.prefix_len = [...arm.substrPrefix.value].length; // SQLite substr counts characters
  }
  if (f.startMs !== undefined) params.start = f.startMs;
  if (f.endMs !== undefined) params.end = f.endMs;
  if (o.after) Object.assign(params, { after_t: o.after.t, after_s: o.after.s });
  if (o.maxSeq !== undefined) params.max_seq = o.maxSeq;
  return params;
}

const fetchArm = (db: Db, spec: TableSpec, f: Filters, arm: Arm, o: Fetch): Row[] =>
  armStatement(db, spec, f, arm, o).all(armParams(f, arm, o)) as Row[];

/** SQLite's plan for each arm of a query (tests check that no filter combination needs a sort). */
export function explainPage(db: Db, spec: TableSpec, f: Filters, o: Fetch): string[] {
  return armsFor(db, spec, f).map((arm) => {
    const sql = armStatement(db, spec, f, arm, o).source;
    const steps = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(armParams(f, arm, o)) as { detail: string }[];
    return steps.map((s) => s.detail).join('; ');
  });
}

export const keyOf = (spec: TableSpec, row: Row): Key => ({ t: row[spec.timeColumn] as number, s: row.seq });

/** Compares in the direction's order: negative when a comes first. */
function order(spec: TableSpec, dir: Direction) {
  const sign = dir === 'desc' ? -1 : 1;
  return (a: Row, b: Row) => {
    const ta = a[spec.timeColumn] as number;
    const tb = b[spec.timeColumn] as number;
    return sign * (ta !== tb ? ta - tb : a.seq - b.seq);
  };
}

/** Up to `limit` rows after `after` in the given order, merged across the filter's arms. */
export function fetchPage(db: Db, spec: TableSpec, f: Filters, o: Fetch): Row[] {
  const arms = armsFor(db, spec, f);
  if (arms.length === 1) return fetchArm(db, spec, f, arms[0], o);
  const rows = arms.flatMap((arm) => fetchArm(db, spec, f, arm, o));
  return rows.sort(order(spec, o.dir)).slice(0, o.limit);
}

/**
 * Every matching row with seq <= maxSeq, oldest first, in batches. Each batch is a fresh keyset
 * query, so no statement stays open between batches and writers are never held up.
 */
export function* scanBatches(db: Db, spec: TableSpec, f: Filters, maxSeq: number, batchSize: number): Generator<Row[]> {
  const cmp = order(spec, 'asc');
  const arms = armsFor(db, spec, f).map((arm) => ({ arm, buf: [] as Row[], pos: 0, after: undefined as Key | undefined, done: false }));
  const head = (a: (typeof arms)[number]): Row | undefined => {
    if (a.pos === a.buf.length && !a.done) {
      a.buf = fetchArm(db, spec, f, a.arm, { after: a.after, limit: batchSize, dir: 'asc', maxSeq });
      a.pos = 0;
      a.done = a.buf.length < batchSize;
      if (a.buf.length) a.after = keyOf(spec, a.buf[a.buf.length - 1]);
    }
    return a.buf[a.pos];
  };
  for (;;) {
    const batch: Row[] = [];
    while (batch.length < batchSize) {
      let best: (typeof arms)[number] | undefined;
      let bestRow: Row | undefined;
      for (const a of arms) {
        const r = head(a);
        if (r && (!bestRow || cmp(r, bestRow) < 0)) { best = a; bestRow = r; }
      }
      if (!best || !bestRow) break;
      best.pos++;
      batch.push(bestRow);
    }
    if (batch.length) yield batch;
    if (batch.length < batchSize) return;
  }
}

/** The highest seq now: an export stops there, so rows written while it streams are left out. */
export const maxSeqOf = (db: Db, spec: TableSpec): number =>
  (cached(db, `${spec.table}|maxseq`, () => `SELECT coalesce(max(seq), 0) FROM ${spec.table}`).pluck().get() as number);
