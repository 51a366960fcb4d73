import type { Column } from './screen-api.js';
import { sanitize } from '../../text/sanitize.js';
import { fit, leadingColumns, trailingColumns, widthOf } from './text.js';

export const GUTTER = 2; // '› ' marks the selected row without relying on colour
export const SEPARATOR = 2;

/** Text of one cell: sanitized, one line, never throws (a bad row shows '?'). */
export function cellText<Row>(col: Column<Row>, row: Row): string {
  try {
    const v = col.value(row);
    if (v === null || v === undefined || v === '') return '–';
    return sanitize(typeof v === 'object' ? JSON.stringify(v) : v, 300);
  } catch {
    return '?';
  }
}

/**
 * The cell at `width`: cut with …, an id (uniquePrefix) to its first characters, which still tell it
 * apart, or a chart (keepsEnd) to its last ones, the newest.
 */
export function fitCell<Row>(col: Column<Row>, row: Row, width: number): string {
  const text = cellText(col, row);
  if (widthOf(text) > width) {
    if (col.uniquePrefix) return fit(leadingColumns(text, width), width, col.align);
    if (col.keepsEnd) return fit(trailingColumns(text, width), width, col.align);
  }
  return fit(text, width, col.align);
}

/** Characters an id column needs to tell its rows apart: one past the longest prefix two of them share. */
function distinguishingLength<Row>(col: Column<Row>, sample: Row[]): number {
  const ids = [...new Set(sample.map((r) => cellText(col, r)))].sort();
  let need = 0;
  for (let i = 1; i < ids.length; i++) {
    const [a, b] = [ids[i - 1], ids[i]];
    let shared = 0;
    while (shared < a.length && a[shared] === b[shared]) shared++;
    need = Math.max(need, Math.min(shared + 1, b.length));
  }
  return need;
}

/** Scroll offset that keeps the cursor inside a window of `visible` rows. */
export function scrollFor(cursor: number, scroll: number, visible: number, count: number): number {
  if (visible <= 0) return 0;
  let s = scroll;
  if (cursor < s) s = cursor;
  if (cursor >= s + visible) s = cursor - visible + 1;
  return Math.max(0, Math.min(s, Math.max(0, count - visible)));
}

/** " ▼" after the header of the column a list is sorted by. */
export const SORT_MARK_WIDTH = 2;

/**
 * Column widths that fit `width`: natural widths (header and content, capped; the `sorted`
 * column's header with its mark), `givesWay` columns shrunk first, then the widest (`holdsWidth`
 * ones last), leftover given to `grow` columns; columns that still do not fit are dropped.
 */
export function layoutColumns<Row>(columns: Column<Row>[], sample: Row[], width: number, sorted = -1): number[] {
  const natural = columns.map((c, i) => {
    if (c.width) return c.width;
    let w = widthOf(c.header) + (i === sorted ? SORT_MARK_WIDTH : 0);
    for (const r of sample) w = Math.max(w, widthOf(cellText(c, r)));
    return Math.min(w, c.maxWidth ?? 40);
  });
  const mins = columns.map((c, i) =>
    c.width
      ? c.width
      : Math.min(
          natural[i],
          c.uniquePrefix ? Math.max(c.uniquePrefix, distinguishingLength(c, sample)) : (c.minWidth ?? 6),
        ),
  );
  const widths = [...natural];
  const available = (n: number) => width - GUTTER - SEPARATOR * Math.max(0, n - 1);
  let count = columns.length;
  const total = () => widths.slice(0, count).reduce((a, b) => a + b, 0);
  while (count > 1 && mins.slice(0, count).reduce((a, b) => a + b, 0) > available(count)) count--;
  for (let i = 0; i < count; i++) {
    if (columns[i].givesWay) widths[i] -= Math.max(0, Math.min(widths[i] - mins[i], total() - available(count)));
  }
  // the widest narrows first; a column that holds its width only once no other can narrow
  const narrowable = (holding: boolean) => {
    let widest = -1;
    for (let i = 0; i < count; i++) {
      if (Boolean(columns[i].holdsWidth) !== holding || widths[i] <= mins[i]) continue;
      if (widest < 0 || widths[i] > widths[widest]) widest = i;
    }
    return widest;
  };
  while (total() > available(count)) {
    const widest = narrowable(false) >= 0 ? narrowable(false) : narrowable(true);
    if (widest < 0) break;
    widths[widest]--;
  }
  // Leftover goes to `grow` columns, each up to its maxWidth; the rest stays blank on the right.
  let left = available(count) - total();
  for (let i = 0; i < count && left > 0; i++) {
    if (!columns[i].grow) continue;
    const add = Math.min(left, Math.max(0, (columns[i].maxWidth ?? 40) - widths[i]));
    widths[i] += add;
    left -= add;
  }
  return widths.slice(0, count).map((w) => Math.max(0, w));
}
