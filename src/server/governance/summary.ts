import type { Summary } from '../../contract/index.js';
import type { Db } from '../db/open.js';
import { containsPattern, normalizeFilters, type Filters, type TableSpec } from './filters.js';
import { searchWhere } from './keyset.js';

/** The sub-groups a summary's group lists with then_by. */
const SUB_GROUPS = 3;

/** What a summary may group by: query name -> column. */
export type GroupColumns = Record<string, string>;

type Counts = Map<string | null, Map<string | null, number>>;

/** The WHERE of every row the filters match, with its parameters (no order: counts need none). */
function matchWhere(spec: TableSpec, f: Filters): { where: string; params: Record<string, unknown> } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(f.equals)) {
    clauses.push(`${column} = @eq_${column}`);
    params[`eq_${column}`] = value;
  }
  if (f.prefix) {
    clauses.push(`substr(${f.prefix.column}, 1, @prefix_len) = @prefix`);
    params.prefix = f.prefix.value;
    params.prefix_len = [...f.prefix.value].length;
  }
  if (f.q !== undefined) {
    clauses.push(searchWhere(spec));
    params.q = containsPattern(f.q);
  }
  if (f.startMs !== undefined) {
    clauses.push(`${spec.timeColumn} >= @start`);
    params.start = f.startMs;
  }
  if (f.endMs !== undefined) {
    clauses.push(`${spec.timeColumn} < @end`);
    params.end = f.endMs;
  }
  return { where: clauses.length ? ` WHERE ${clauses.join(' AND ')}` : '', params };
}

/** Count per (group, sub-group) over the matching rows; one scan whatever the grouping. */
function countRows(db: Db, spec: TableSpec, f: Filters, group?: string, sub?: string): Counts {
  const { where, params } = matchWhere(spec, f);
  const g = group ?? 'NULL';
  const h = sub ?? 'NULL';
  const rows = db.prepare(`SELECT ${g}, ${h}, count(*) FROM ${spec.table}${where} GROUP BY 1, 2`).raw(true).all(params) as [string | null, string | null, number][];
  const counts: Counts = new Map();
  for (const [k, s, n] of rows) {
    let m = counts.get(k);
    if (!m) counts.set(k, (m = new Map()));
    m.set(s, (m.get(s) ?? 0) + n);
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
  const counts = countRows(db, spec, f, group, sub);
  const all = [...counts].map(([key, subs]) => {
    const entries = [...subs].map(([k, count]) => ({ key: k, count }));
    return { key, count: entries.reduce((s, e) => s + e.count, 0), entries };
  });
  const total = all.reduce((s, g) => s + g.count, 0);
  if (group === undefined) return { total, group_by: null, then_by: null, groups: [], other: 0 };
  const shown = all.sort(largestFirst).slice(0, q.limit);
  const groups = shown.map((g) => ({
    key: g.key,
    count: g.count,
    ...(sub !== undefined ? { sub: g.entries.sort(largestFirst).slice(0, SUB_GROUPS) } : {}),
  }));
  return { total, group_by: q.group_by!, then_by: q.then_by ?? null, groups, other: total - shown.reduce((s, g) => s + g.count, 0) };
}
