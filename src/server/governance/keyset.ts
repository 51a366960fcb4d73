import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/sqlite-driver.js';
import type { Key } from './cursor.js';
import { containsPattern, searchWhere, type Filters, type TableSpec } from './filters.js';
import { candidatesFrom, EXPORT_WINDOW } from './search.js';

/**
 * A row as an array in the order of the select (better-sqlite3 raw mode): building an object per
 * row costs about as much again as reading it (test/bench/server-scale).
 */
export type Row = unknown[];

/** Each column's position in a row selected as `columns.join(', ')`. */
export const columnIndex = <C extends string>(columns: readonly C[]): Record<C, number> =>
  Object.fromEntries(columns.map((c, i) => [c, i])) as Record<C, number>;
type Direction = 'desc' | 'asc';

/**
 * One index-ordered stream of rows. A prefix filter (gateway.key.*) becomes one arm per distinct
 * matching value, each an exact match that its (column, time) index returns already in order; the
 * arms are merged. Sorting the union instead would read every matching row for each page.
 */
interface Arm {
  equals: Record<string, string>;
  substrPrefix?: { column: string; value: string };
}

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
  const first = cached(
    db,
    `${spec.table}|first|${column}`,
    () => `SELECT ${column} FROM ${spec.table} WHERE ${column} >= ? ORDER BY ${column} LIMIT 1`,
  ).pluck();
  const next = cached(
    db,
    `${spec.table}|next|${column}`,
    () => `SELECT ${column} FROM ${spec.table} WHERE ${column} > ? ORDER BY ${column} LIMIT 1`,
  ).pluck();
  const out: string[] = [];
  // Values sharing a prefix are contiguous in BINARY (UTF-8 byte) order, so stop at the first miss.
  for (
    let v = first.get(prefix) as string | undefined;
    v !== undefined && v.startsWith(prefix);
    v = next.get(v) as string | undefined
  ) {
    if (out.length === MAX_ARMS) return null;
    out.push(v);
  }
  return out;
}

function armsFor(db: Db, spec: TableSpec, f: Filters, o?: { match?: string }): Arm[] {
  if (!f.prefix) return [{ equals: f.equals }];
  // in seq order every arm would read the same rowid range, and from the search index's candidates
  // every arm would read them all: one scan checks the prefix instead
  if (spec.order === 'seq' || o?.match !== undefined) return [{ equals: f.equals, substrPrefix: f.prefix }];
  const { column, value } = f.prefix;
  const values = distinctWithPrefix(db, spec, column, value);
  if (values === null) return [{ equals: f.equals, substrPrefix: f.prefix }];
  return values.map((v) => ({ equals: { ...f.equals, [column]: v } }));
}

interface Fetch {
  after?: Key;
  /** the last key to include */
  upTo?: Key;
  limit: number;
  dir: Direction;
  maxSeq?: number;
  /** what to select instead of spec.select; must start with `seq, <timeColumn>` */
  select?: string;
  /** read the search index's candidates for this FTS5 query (search.ts), not the table in order */
  match?: string;
}

/** A count this high already means "common": probing further would cost more than it saves. */
const PROBE_CAP = 5000;
const PROBE_TTL_MS = 60_000;
const probes = new WeakMap<Db, Map<string, { n: number; at: number }>>();

/** How many rows hold column = value, counted through its index up to PROBE_CAP; cached a minute. */
function probeCount(db: Db, spec: TableSpec, column: string, value: string): number {
  let m = probes.get(db);
  if (!m) probes.set(db, (m = new Map()));
  const key = `${spec.table}|${column}|${value}`;
  const now = Date.now();
  const hit = m.get(key);
  if (hit && now - hit.at < PROBE_TTL_MS) return hit.n;
  const st = cached(
    db,
    `${spec.table}|probe|${column}`,
    () => `SELECT count(*) FROM (SELECT 1 FROM ${spec.table} WHERE ${column} = ? LIMIT ${PROBE_CAP})`,
  ).pluck();
  const n = st.get(value) as number;
  if (m.size > 1000) m.clear();
  m.set(key, { n, at: now });
  return n;
}

/**
 * The equality columns present, the one driving the scan first. That is the spec's first unless
 * another value is rare (under PROBE_CAP rows) and rarer: actor=<a service with half the rows> with
 * outcome=denied reads the few denied rows, not half the table looking for them.
 */
function eqColumnsFor(db: Db, spec: TableSpec, arm: Arm): string[] {
  const present = spec.equals.map((e) => e.column).filter((c) => arm.equals[c] !== undefined);
  if (present.length < 2 || spec.order === 'seq') return present;
  const counts = present.map((c) => probeCount(db, spec, c, arm.equals[c]));
  let best = 0;
  for (let i = 1; i < present.length; i++) if (counts[i] < counts[best]) best = i;
  return best === 0 ? present : [present[best], ...present.filter((_, i) => i !== best)];
}

/** One arm's scan: a key for its statements and its `FROM … ORDER BY …` (armParams gives the values). */
function armScan(db: Db, spec: TableSpec, f: Filters, arm: Arm, o: Fetch): { shape: string; from: () => string } {
  const eqColumns = eqColumnsFor(db, spec, arm);
  const bySeq = spec.order === 'seq';
  const shape = [
    spec.table,
    spec.order ?? 'time',
    o.dir,
    eqColumns.join(','),
    f.startMs !== undefined,
    f.endMs !== undefined,
    o.after !== undefined,
    o.upTo !== undefined,
    o.maxSeq !== undefined,
    arm.substrPrefix?.column ?? '',
    f.q !== undefined,
    o.select ?? '',
    o.match !== undefined,
  ].join('|');
  const from = () => {
    const t = spec.timeColumn;
    // The first equality drives the scan; a unary + keeps the planner off the other columns' indexes.
    // In seq order none does but a `few` one: a range of the rowid is read and checked, each batch
    // from where the last one stopped (a filter's index would give its rows in time order, sorted
    // again each batch, which only a handful of rows makes cheaper).
    const drives = eqColumns.length > 0 && (!bySeq || spec.equals.some((e) => e.column === eqColumns[0] && e.few));
    const where = eqColumns.map((c, i) => `${i === 0 && drives ? '' : '+'}${c} = @eq_${c}`);
    if (arm.substrPrefix) where.push(`substr(${arm.substrPrefix.column}, 1, @prefix_len) = @prefix`);
    if (f.q !== undefined) where.push(searchWhere(spec));
    const time = bySeq ? `+${t}` : t;
    if (f.startMs !== undefined) where.push(`${time} >= @start`);
    if (f.endMs !== undefined) where.push(`${time} < @end`);
    const key = bySeq ? ['seq', '@after_s', '@upto_s'] : [`(${t}, seq)`, '(@after_t, @after_s)', '(@upto_t, @upto_s)'];
    if (o.after) where.push(`${key[0]} ${o.dir === 'desc' ? '<' : '>'} ${key[1]}`);
    if (o.upTo) where.push(`${key[0]} ${o.dir === 'desc' ? '>=' : '<='} ${key[2]}`);
    if (o.maxSeq !== undefined) where.push(bySeq ? 'seq <= @max_seq' : '+seq <= @max_seq');
    const d = o.dir.toUpperCase();
    return `FROM ${o.match !== undefined ? candidatesFrom(spec) : spec.table}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${bySeq ? '' : `${t} ${d}, `}seq ${d}`;
  };
  return { shape, from };
}

function armStatement(db: Db, spec: TableSpec, f: Filters, arm: Arm, o: Fetch): Statement {
  const scan = armScan(db, spec, f, arm, o);
  return cached(db, scan.shape, () => `SELECT ${o.select ?? spec.select} ${scan.from()} LIMIT @limit`).raw(true);
}

function armParams(spec: TableSpec, f: Filters, arm: Arm, o: Fetch): Record<string, unknown> {
  const params: Record<string, unknown> = { limit: o.limit };
  for (const [c, v] of Object.entries(arm.equals)) params[`eq_${c}`] = v;
  if (arm.substrPrefix) {
    params.prefix = arm.substrPrefix.value;
    params.prefix_len = [...arm.substrPrefix.value].length; // SQLite substr counts characters
  }
  if (f.q !== undefined) params.q = containsPattern(f.q);
  if (o.match !== undefined) params.match = o.match;
  if (f.startMs !== undefined) params.start = f.startMs;
  if (f.endMs !== undefined) params.end = f.endMs;
  const bySeq = spec.order === 'seq';
  if (o.after) Object.assign(params, bySeq ? { after_s: o.after.s } : { after_t: o.after.t, after_s: o.after.s });
  if (o.upTo) Object.assign(params, bySeq ? { upto_s: o.upTo.s } : { upto_t: o.upTo.t, upto_s: o.upTo.s });
  if (o.maxSeq !== undefined) params.max_seq = o.maxSeq;
  return params;
}

const fetchArm = (db: Db, spec: TableSpec, f: Filters, arm: Arm, o: Fetch): Row[] =>
  armStatement(db, spec, f, arm, o).all(armParams(spec, f, arm, o)) as Row[];

/** SQLite's plan for each arm of a query (tests check that no filter combination needs a sort). */
export function explainPage(db: Db, spec: TableSpec, f: Filters, o: Fetch): string[] {
  return armsFor(db, spec, f, o).map((arm) => {
    const sql = armStatement(db, spec, f, arm, o).source;
    const steps = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(armParams(spec, f, arm, o)) as { detail: string }[];
    return steps.map((s) => s.detail).join('; ');
  });
}

const positions = new WeakMap<TableSpec, { t: number; s: number }>();

/**
 * Where the time column and seq are in a row: found in spec.select (a list of column names); a
 * select of one's own (an export's expressions) must start with `seq, <timeColumn>`.
 */
function keyPositions(spec: TableSpec, select: string): { t: number; s: number } {
  if (select !== spec.select) {
    if (!select.startsWith(`seq, ${spec.timeColumn},`))
      throw new Error(`a select must start with seq, ${spec.timeColumn}: ${select}`);
    return { s: 0, t: 1 };
  }
  let p = positions.get(spec);
  if (!p) {
    const names = select.split(',').map((c) => c.trim());
    p = { t: names.indexOf(spec.timeColumn), s: names.indexOf('seq') };
    if (p.t < 0 || p.s < 0) throw new Error(`${spec.table} select must include seq and ${spec.timeColumn}`);
    positions.set(spec, p);
  }
  return p;
}

export function keyOf(spec: TableSpec, row: Row, select = spec.select): Key {
  const p = keyPositions(spec, select);
  return { t: row[p.t] as number, s: row[p.s] as number };
}

/** Compares in the direction's order: negative when a comes first. */
function order(spec: TableSpec, dir: Direction, select = spec.select) {
  const p = keyPositions(spec, select);
  const sign = dir === 'desc' ? -1 : 1;
  if (spec.order === 'seq') return (a: Row, b: Row) => sign * ((a[p.s] as number) - (b[p.s] as number));
  return (a: Row, b: Row) =>
    sign * ((a[p.t] as number) - (b[p.t] as number) || (a[p.s] as number) - (b[p.s] as number));
}

/** Up to `limit` rows after `after` in the given order, merged across the filter's arms. */
export function fetchPage(db: Db, spec: TableSpec, f: Filters, o: Fetch): Row[] {
  const arms = armsFor(db, spec, f, o);
  if (arms.length === 1) return fetchArm(db, spec, f, arms[0], o);
  const rows = arms.flatMap((arm) => fetchArm(db, spec, f, arm, o));
  return rows.sort(order(spec, o.dir, o.select)).slice(0, o.limit);
}

export interface Scan {
  maxSeq: number;
  batchSize: number;
  /** what to select instead of spec.select; must start with `seq, <timeColumn>` */
  select?: string;
}

/**
 * Every matching row with seq <= maxSeq, oldest first, in batches. Each batch is a fresh keyset
 * query, so no statement stays open between batches and writers are never held up. With a text
 * search, the rows are read in windows of EXPORT_WINDOW (search.ts), each giving its batches or,
 * when nothing in it matched, an empty one: a rare text's export reads the trail a window per turn
 * of the event loop (export-file.ts), never the whole of it at once.
 */
export function* scanBatches(db: Db, spec: TableSpec, f: Filters, o: Scan): Generator<Row[]> {
  if (f.q === undefined) return yield* scanWindow(db, spec, f, o);
  let after: Key | undefined;
  for (;;) {
    // in write order a window is a range of seq (every row in it is read, whatever the time range);
    // in time order, the next EXPORT_WINDOW rows of the time range
    const upTo =
      spec.order === 'seq'
        ? (after?.s ?? 0) + EXPORT_WINDOW < o.maxSeq
          ? { t: 0, s: (after?.s ?? 0) + EXPORT_WINDOW }
          : undefined
        : keyAfterRows(db, spec, f, { after, limit: EXPORT_WINDOW, dir: 'asc', maxSeq: o.maxSeq });
    let empty = true;
    for (const batch of scanWindow(db, spec, f, o, { after, upTo })) {
      empty = false;
      yield batch;
    }
    if (empty) yield [];
    if (!upTo) return;
    after = upTo;
  }
}

function* scanWindow(
  db: Db,
  spec: TableSpec,
  f: Filters,
  o: Scan,
  window: { after?: Key; upTo?: Key } = {},
): Generator<Row[]> {
  const cmp = order(spec, 'asc', o.select);
  const fetch: Omit<Fetch, 'after'> = {
    limit: o.batchSize,
    dir: 'asc',
    maxSeq: o.maxSeq,
    select: o.select,
    upTo: window.upTo,
  };
  const arms = armsFor(db, spec, f).map((arm) => ({
    arm,
    buf: [] as Row[],
    pos: 0,
    after: window.after,
    done: false,
  }));
  const head = (a: (typeof arms)[number]): Row | undefined => {
    if (a.pos === a.buf.length && !a.done) {
      a.buf = fetchArm(db, spec, f, a.arm, { ...fetch, after: a.after });
      a.pos = 0;
      a.done = a.buf.length < o.batchSize;
      if (a.buf.length) a.after = keyOf(spec, a.buf[a.buf.length - 1], o.select);
    }
    return a.buf[a.pos];
  };
  // one arm (no prefix filter, the common case): its batches as they come
  if (arms.length === 1) {
    for (;;) {
      head(arms[0]);
      const batch = arms[0].buf;
      arms[0].pos = batch.length;
      if (batch.length) yield batch;
      if (batch.length < o.batchSize) return;
    }
  }
  for (;;) {
    const batch: Row[] = [];
    while (batch.length < o.batchSize) {
      let best: (typeof arms)[number] | undefined;
      let bestRow: Row | undefined;
      for (const a of arms) {
        const r = head(a);
        if (r && (!bestRow || cmp(r, bestRow) < 0)) {
          best = a;
          bestRow = r;
        }
      }
      if (!best || !bestRow) break;
      best.pos++;
      batch.push(bestRow);
    }
    if (batch.length) yield batch;
    if (batch.length < o.batchSize) return;
  }
}

export interface AggregateBatch {
  /** the aggregate's row over the batch's rows */
  value: Row;
  /** the batch's rows themselves, as `select` gives them */
  rows(select: string): Row[];
}

/**
 * The rows scanBatches gives, each batch reduced by SQLite to one row: `aggregate` over the
 * batch's rows as `select` gives them, in order (`SELECT <aggregate> FROM (SELECT <select> …
 * ORDER BY … LIMIT n)`: an ordered subquery with a limit is read in its order). A batch runs from
 * the last key of the one before to the key of its batchSize-th row, which the index gives first.
 * Null when the filters need several arms (only scanBatches merges those) or search a text.
 */
export function aggregateBatches(
  db: Db,
  spec: TableSpec,
  f: Filters,
  o: { maxSeq: number; batchSize: number; select: string; aggregate: string },
): Iterable<AggregateBatch> | null {
  // a batch ends at its batchSize-th match: a rare text's would read the whole trail at once
  if (f.q !== undefined) return null;
  const arms = armsFor(db, spec, f);
  if (arms.length !== 1) return null;
  const arm = arms[0];
  // A batch's statements depend only on whether it has a lower and an upper key: looked up once
  // each, so that a batch does not re-probe the filter's columns or rebuild a cache key of the SQL.
  const statements = new Map<string, Statement>();
  const statement = (kind: 'last' | 'aggregate', range: Fetch): Statement => {
    const local = `${kind}|${range.after !== undefined}|${range.upTo !== undefined}`;
    let st = statements.get(local);
    if (!st) {
      const scan = armScan(db, spec, f, arm, range);
      st =
        kind === 'last'
          ? cached(
              db,
              `last|${scan.shape}`,
              () => `SELECT ${spec.timeColumn}, seq ${scan.from()} LIMIT 1 OFFSET @limit - 1`,
            )
          : cached(
              db,
              `aggregate|${o.aggregate}|${o.select}|${scan.shape}`,
              () => `SELECT ${o.aggregate} FROM (SELECT ${o.select} ${scan.from()} LIMIT @limit)`,
            );
      statements.set(local, (st = st.raw(true)));
    }
    return st;
  };
  const lastKeyOf = (range: Fetch): Key | undefined => {
    const row = statement('last', range).get(armParams(spec, f, arm, range)) as [number, number] | undefined;
    return row && { t: row[0], s: row[1] };
  };
  const aggregateOf = (range: Fetch): Row => statement('aggregate', range).get(armParams(spec, f, arm, range)) as Row;
  return (function* batches() {
    let after: Key | undefined;
    for (;;) {
      const rest: Fetch = { limit: o.batchSize, dir: 'asc', maxSeq: o.maxSeq, after };
      const upTo = lastKeyOf(rest);
      const range: Fetch = { ...rest, upTo };
      yield { value: aggregateOf(range), rows: (select) => fetchArm(db, spec, f, arm, { ...range, select }) };
      if (!upTo) return;
      after = upTo;
    }
  })();
}

/**
 * Where a search's reading of at most `o.limit` rows after `o.after` ends: the key of the
 * `o.limit`-th row of the time range in the scan's order, whatever the other filters (a row that
 * fails them is read all the same), or none when fewer remain. Read from the time index alone: a
 * count of the rows that pass every filter could itself read the whole trail when few do.
 */
export function keyAfterRows(db: Db, spec: TableSpec, f: Filters, o: Fetch): Key | undefined {
  const plain: Filters = { startMs: f.startMs, endMs: f.endMs, equals: {} };
  const arm: Arm = { equals: {} };
  const scan = armScan(db, spec, plain, arm, o);
  const row = cached(
    db,
    `nth|${scan.shape}`,
    () => `SELECT ${spec.timeColumn}, seq ${scan.from()} LIMIT 1 OFFSET @limit - 1`,
  )
    .raw(true)
    .get(armParams(spec, plain, arm, o)) as [number, number] | undefined;
  return row && { t: row[0], s: row[1] };
}

/** The highest seq now: an export stops there, so rows written while it streams are left out. */
export const maxSeqOf = (db: Db, spec: TableSpec): number =>
  cached(db, `${spec.table}|maxseq`, () => `SELECT coalesce(max(seq), 0) FROM ${spec.table}`)
    .pluck()
    .get() as number;
