/**
 * Sorting a list by one of its columns. Cells are display text ("12 min", "40k", "∞", "1.2 GiB")
 * that does not sort as text, so a column sorts by a key: its own `sort(row)` when it gives one,
 * else its value when that is a number or an ISO time, else its text.
 */
import type { Column } from './screen-api.js';
import { cellText } from './table-layout.js';
import type { SortState } from './screen-state.js';

export type SortKey = number | string | null;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** Milliseconds of an ISO time, or null: a sort key for a time column that shows "12 min ago". */
export function timeKey(iso: string | null | undefined): number | null {
  if (typeof iso !== 'string' || iso === '') return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
}

/** A row's sort key in a column; a failing or meaningless key is null (sorted last). */
export function sortKeyOf<Row>(col: Column<Row>, row: Row): SortKey {
  try {
    if (col.sort) {
      const k = col.sort(row);
      if (typeof k === 'number') return Number.isNaN(k) ? null : k;
      return typeof k === 'string' ? textKey(k) : null;
    }
    const v = col.value(row);
    if (v === null || v === undefined || v === '') return null;
    if (typeof v === 'number') return Number.isNaN(v) ? null : v;
    if (typeof v === 'string' && ISO_TIME.test(v)) return timeKey(v) ?? textKey(v);
  } catch {
    return null;
  }
  const text = cellText(col, row);
  return text === '–' || text === '?' ? null : textKey(text);
}

/**
 * Text as it sorts: case-blind, and each run of digits padded so that "key 9" comes before
 * "key 10" in a plain comparison (a collator's numeric compare took half a second on 100,000 rows).
 */
const textKey = (s: string) => s.toLowerCase().replace(/\d+/g, (d) => d.padStart(16, '0'));

/**
 * Orders two keys: numbers before text, and null (unknown, never) last whichever the direction,
 * so flipping the order does not bring the blanks to the top.
 */
export function compareKeys(a: SortKey, b: SortKey, descending = false): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  let c: number;
  if (typeof a === 'number' && typeof b === 'number') c = a === b ? 0 : a < b ? -1 : 1;
  else if (typeof a === 'number') c = -1;
  else if (typeof b === 'number') c = 1;
  else c = a === b ? 0 : a < b ? -1 : 1;
  return descending ? -c : c;
}

/**
 * A sorted copy of `rows`; stable (rows with equal keys keep the server's order). Each key is
 * computed once, not once per comparison.
 */
export function sortRows<Row>(rows: readonly Row[], col: Column<Row>, descending: boolean): Row[] {
  const keyed = rows.map((row, i) => ({ row, i, key: sortKeyOf(col, row) }));
  keyed.sort((x, y) => compareKeys(x.key, y.key, descending) || x.i - y.i);
  return keyed.map((k) => k.row);
}

/** The column a sort names, or undefined (a header that is gone: the list is unsorted). */
export const sortColumn = <Row>(columns: Column<Row>[], sort: SortState | null | undefined): Column<Row> | undefined =>
  sort ? columns.find((c) => c.header === sort.column) : undefined;

/** `s`: no sort (the appliance's order), then each column in turn, then no sort again. */
export function nextSort<Row>(columns: Column<Row>[], sort: SortState | null | undefined): SortState | null {
  const i = sort ? columns.findIndex((c) => c.header === sort.column) : -1;
  const next = columns[i + 1];
  return next ? { column: next.header, descending: false } : null;
}

/** `S`: the other direction; on an unsorted list, the first column, descending. */
export function flipSort<Row>(columns: Column<Row>[], sort: SortState | null | undefined): SortState | null {
  if (sort && sortColumn(columns, sort)) return { column: sort.column, descending: !sort.descending };
  return columns[0] ? { column: columns[0].header, descending: true } : null;
}

/** The header's mark: ▲ ascending, ▼ descending. */
export const sortMark = (descending: boolean) => (descending ? '▼' : '▲');
