import type { Statement } from 'better-sqlite3';
import type { Summary } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { matchWhere, normalizeFilters, type Filters, type TableSpec } from './filters.js';
import { candidatesFrom, SUMMARY_SCAN_BUDGET, searchPlan } from './search.js';
import { unprocessable } from '../errors.js';

/** The sub-groups a summary's group lists with then_by. */
const SUB_GROUPS = 3;

/** What a summary may group by: query name -> column. */
type GroupColumns = Record<string, string>;

type Counts = Map<string | null, Map<string | null, number>>;

const statements = new WeakMap<Db, Map<string, Statement>>();

/** The rows of a (group, sub-group, count) query, its statement prepared once per database. */
function groupRows(db: Db, sql: string, params: Record<string, unknown>): [string | null, string | null, number][] {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let st = m.get(sql);
  if (!st) m.set(sql, (st = db.prepare(sql).raw(true)));
  return st.all(params) as [string | null, string | null, number][];
}

function addRows(counts: Counts, rows: [string | null, string | null, number][]): void {
  for (const [k, s, n] of rows) {
    let m = counts.get(k);
    if (!m) counts.set(k, (m = new Map()));
    m.set(s, (m.get(s) ?? 0) + n);
  }
}

/**
 * Count per (group, sub-group) over the matching rows in [from, to), read row by row: from the
 * search index's candidates when `match` is given (search.ts).
 */
function countRows(
  db: Db,
  spec: TableSpec,
  f: Filters,
  range: Range,
  group: string | undefined,
  sub: string | undefined,
  counts: Counts,
  how: { match?: string; drives?: string } = {},
): void {
  const { match, drives } = how;
  const { where, params } = matchWhere(spec, { ...f, startMs: range.from, endMs: range.to }, drives);
  const from = match === undefined ? spec.table : candidatesFrom(spec);
  if (match !== undefined) params.match = match;
  const sql = `SELECT ${group ?? 'NULL'}, ${sub ?? 'NULL'}, count(*) FROM ${from}${where} GROUP BY 1, 2`;
  addRows(counts, groupRows(db, sql, params));
}

/**
 * How many rows counting a search would read, up to `cap` + 1: those of the time range with the
 * value of the rarest equality filter given (each counted through its index, up to the cap), or of
 * the whole time range without one. A prefix is checked on each row read, so it narrows nothing.
 */
function rowsUpTo(db: Db, spec: TableSpec, f: Filters, cap: number): { rows: number; drives?: string } {
  const read = (equals: Record<string, string>) => {
    const { where, params } = matchWhere(spec, { startMs: f.startMs, endMs: f.endMs, equals });
    const [[, , n]] = groupRows(
      db,
      `SELECT NULL, NULL, count(*) FROM (SELECT 1 FROM ${spec.table}${where} LIMIT @cap)`,
      { ...params, cap: cap + 1 },
    );
    return n;
  };
  const equals = Object.entries(f.equals).map(([c, v]) => ({ drives: c, rows: read({ [c]: v }) }));
  if (!equals.length) return { rows: read({}) };
  return equals.reduce((a, b) => (b.rows < a.rows ? b : a));
}

/**
 * The rows a text search counts (search.ts): the index's candidates when few, else every row of the
 * range when those are few; else the count is refused rather than read from a million rows.
 */
function searchedCounts(db: Db, spec: TableSpec, f: Filters, group?: string, sub?: string): Counts {
  const counts: Counts = new Map();
  const range = { from: f.startMs ?? 0, to: f.endMs ?? Number.MAX_SAFE_INTEGER };
  const plan = searchPlan(db, spec, f.q!);
  if (plan.via === 'index') {
    countRows(db, spec, f, range, group, sub, counts, { match: plan.match });
    return counts;
  }
  const read = rowsUpTo(db, spec, f, SUMMARY_SCAN_BUDGET);
  if (read.rows > SUMMARY_SCAN_BUDGET)
    throw unprocessable(
      `the search text is in too many ${spec.kind === 'audit' ? 'entries' : 'steps'} to count them all here (over ${SUMMARY_SCAN_BUDGET.toLocaleString('en-US')} to read): narrow the time range or the other filters, or search for a longer text`,
      [{ name: 'q', reason: 'too common to count over this range' }],
    );
  // through the index that was counted: the planner could take another equality's, of far more rows
  countRows(db, spec, f, range, group, sub, counts, { drives: read.drives });
  return counts;
}

/** The same from the tallies of `span` ms starting in [from, to). */
function countTallies(
  db: Db,
  spec: TableSpec,
  f: Filters,
  range: Range & { span: number },
  group: string | undefined,
  sub: string | undefined,
  counts: Counts,
): void {
  const { table, columns } = spec.counts;
  const clauses = ['span_ms = @span', 'start_ms >= @from', 'start_ms < @to'];
  const params: Record<string, unknown> = { span: range.span, from: range.from, to: range.to };
  for (const [column, value] of Object.entries(f.equals)) {
    clauses.push(`${column} = @eq_${column}`);
    params[`eq_${column}`] = value;
  }
  if (f.prefix) {
    clauses.push(`substr(${f.prefix.column}, 1, @prefix_len) = @prefix`);
    Object.assign(params, { prefix: f.prefix.value, prefix_len: [...f.prefix.value].length });
  }
  const g = group === undefined ? 'NULL' : columns[group];
  const h = sub === undefined ? 'NULL' : columns[sub];
  const sql = `SELECT ${g}, ${h}, sum(n) FROM ${table} WHERE ${clauses.join(' AND ')} GROUP BY 1, 2`;
  addRows(counts, groupRows(db, sql, params));
}

interface Range {
  from: number;
  to: number;
}
/** Tally spans, longest first: a range is counted by whole days, then whole hours, then rows. */
const SPANS = [86_400_000, 3_600_000];

/** [from, to) as whole spans of the tallies and the ragged ends left for the rows. */
function split(from: number, to: number, spans = SPANS): (Range & { span?: number })[] {
  if (from >= to) return [];
  if (!spans.length) return [{ from, to }];
  const [span, ...shorter] = spans;
  const a = Math.ceil(from / span) * span;
  const b = Math.floor(to / span) * span;
  if (a >= b) return split(from, to, shorter);
  return [...split(from, a, shorter), { from: a, to: b, span }, ...split(b, to, shorter)];
}

/**
 * Count per (group, sub-group) over every matching row. The tallies serve when every filter is a
 * tallied column (no q, no run_id); else, or for a range's ragged ends, the rows are read.
 */
function countMatches(db: Db, spec: TableSpec, f: Filters, group?: string, sub?: string): Counts {
  if (f.q !== undefined) return searchedCounts(db, spec, f, group, sub);
  const counts: Counts = new Map();
  const tallied =
    f.q === undefined &&
    [...Object.keys(f.equals), ...(f.prefix ? [f.prefix.column] : [])].every((c) => c in spec.counts.columns);
  const from = f.startMs ?? 0;
  const to = f.endMs ?? Number.MAX_SAFE_INTEGER;
  const parts = tallied ? split(from, to) : [{ from, to }];
  for (const part of parts) {
    if (part.span !== undefined) countTallies(db, spec, f, { ...part, span: part.span }, group, sub, counts);
    else countRows(db, spec, f, part, group, sub, counts);
  }
  return counts;
}

/** Largest first, ties by key (null, meaning no value, first). */
function largestFirst(a: { key: string | null; count: number }, b: { key: string | null; count: number }): number {
  if (a.count !== b.count) return b.count - a.count;
  if (a.key === b.key) return 0;
  if (a.key === null) return -1;
  if (b.key === null) return 1;
  return a.key < b.key ? -1 : 1;
}

/**
 * Counts over every row a list's filters match (not a page): the total, and with group_by the
 * largest `limit` groups, each with its SUB_GROUPS largest sub-groups when then_by is given.
 */
export function summarize(
  db: Db,
  spec: TableSpec,
  columns: GroupColumns,
  q: { group_by?: string; then_by?: string; limit: number } & Record<string, unknown>,
): Summary {
  const f = normalizeFilters(spec, q);
  const group = q.group_by !== undefined ? columns[q.group_by] : undefined;
  const sub = q.then_by !== undefined ? columns[q.then_by] : undefined;
  return summaryOf(countMatches(db, spec, f, group, sub), q, group, sub);
}

function summaryOf(
  counts: Counts,
  q: { group_by?: string; then_by?: string; limit: number },
  group: string | undefined,
  sub: string | undefined,
): Summary {
  const all = [...counts].map(([key, subs]) => {
    // a tally brought to 0 (a step that changed status) is no sub-group
    const entries = [...subs].filter(([, count]) => count > 0).map(([k, count]) => ({ key: k, count }));
    return { key, count: entries.reduce((s, e) => s + e.count, 0), entries };
  });
  const total = all.reduce((s, g) => s + g.count, 0);
  const present = all.filter((g) => g.count > 0);
  if (group === undefined) return { total, group_by: null, then_by: null, groups: [], other: 0 };
  const shown = present.sort(largestFirst).slice(0, q.limit);
  const groups = shown.map((g) => ({
    key: g.key,
    count: g.count,
    ...(sub !== undefined ? { sub: g.entries.sort(largestFirst).slice(0, SUB_GROUPS) } : {}),
  }));
  return {
    total,
    group_by: q.group_by!,
    then_by: q.then_by ?? null,
    groups,
    other: total - shown.reduce((s, g) => s + g.count, 0),
  };
}
