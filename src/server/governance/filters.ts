import { createHash } from 'node:crypto';

/** How one governance table is filtered and ordered. */
export interface TableSpec {
  kind: 'audit' | 'journal';
  table: string;
  /** epoch-ms column the time range applies to; rows are ordered by (time, seq) */
  timeColumn: string;
  /**
   * 'seq': rows in write order, not (time, seq), every filter checked on the rows a seq range
   * yields (the audit export: a hash chain reads in seq order, and a clock stepped back would put
   * time order out of step with it)
   */
  order?: 'seq';
  /** the selected columns; includes seq and timeColumn */
  select: string;
  /**
   * Equality filters (query name -> column), most selective first: the first one present drives
   * the scan through its (column, time) index, the others are checked on the rows it yields.
   * `few`: a value matches a handful of rows at most (a request id), so it drives the scan in seq
   * order too, its few matches sorted, rather than every row of the trail being read for them.
   */
  equals: readonly { name: string; column: string; few?: boolean }[];
  /** the equality filter that also accepts a trailing `*` for a prefix match */
  prefixable?: string;
  /** the columns text search (`q`) looks in, and their trigram index (governance/search.ts) */
  search: readonly string[];
  searchIndex: string;
  /**
   * The summaries' per-hour and per-day tallies (migration 5): their table, and each tallied
   * column as an expression over it (the journal's tallies hold '' for a null tool).
   */
  counts: { table: string; columns: Record<string, string> };
}

/** Filters in a canonical form: what the query runs with and what a cursor is bound to. */
export interface Filters {
  startMs?: number;
  endMs?: number;
  /** column -> exact value, only for filters present */
  equals: Record<string, string>;
  /** the prefixable column's value before its trailing `*` */
  prefix?: { column: string; value: string };
  /** text search: rows where any search column contains it, ignoring ASCII case */
  q?: string;
}

export function normalizeFilters(spec: TableSpec, q: Record<string, unknown>): Filters {
  const f: Filters = { equals: {} };
  if (typeof q.start_time === 'string') f.startMs = Date.parse(q.start_time);
  if (typeof q.end_time === 'string') f.endMs = Date.parse(q.end_time);
  for (const { name, column } of spec.equals) {
    const v = q[name];
    if (typeof v !== 'string') continue;
    if (name === spec.prefixable && v.endsWith('*')) f.prefix = { column, value: v.slice(0, -1) };
    else f.equals[column] = v;
  }
  // `*` alone matches everything: no filter at all.
  if (f.prefix?.value === '') delete f.prefix;
  if (typeof q.q === 'string') f.q = q.q;
  return f;
}

/** The query filters as given, for the audit entry of an export (metadata only: names, not content). */
export function filterDetails(spec: TableSpec, q: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['start_time', 'end_time', ...spec.equals.map((e) => e.name), 'q']) {
    if (typeof q[name] === 'string') out[name] = q[name] as string;
  }
  return out;
}

/** `text` as a LIKE pattern matching any value that contains it (escape character `\`). */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

/** A short hash of the canonical filters; a cursor carries it so it only continues the same query. */
export function fingerprint(spec: TableSpec, f: Filters): string {
  const canonical = JSON.stringify([
    spec.kind,
    f.startMs ?? null,
    f.endMs ?? null,
    Object.entries(f.equals).sort(([a], [b]) => (a < b ? -1 : 1)),
    f.prefix ?? null,
    f.q ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 12);
}

/**
 * Text search as a LIKE over each search column (LIKE ignores ASCII case): what decides whether a
 * row matches, on the rows search.ts chooses to read (the trigram index's candidates, or a bounded
 * stretch in time order).
 */
export const searchWhere = (spec: TableSpec): string =>
  `(${spec.search.map((c) => `${c} LIKE @q ESCAPE '\\'`).join(' OR ')})`;

/** The WHERE of every row the filters match, with its parameters (no order: counts need none). */
export function matchWhere(
  spec: TableSpec,
  f: Filters,
  /** the equality column whose index the count reads; a unary + keeps the planner off the others' */
  drives?: string,
): { where: string; params: Record<string, unknown> } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(f.equals)) {
    clauses.push(`${drives !== undefined && column !== drives ? '+' : ''}${column} = @eq_${column}`);
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
