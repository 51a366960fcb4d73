import type { Column } from './screen-api.js';
import type { ScreenUiState } from './screen-state.js';
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
    if (col.short) return fit(cellText({ ...col, value: col.short.value }, row), width, col.align);
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

/** Which columns a table shows, in the screen's order, and each one's width. */
export interface ColumnLayout {
  /** indexes into the columns given */
  shown: number[];
  widths: number[];
}

/**
 * Column widths that fit `width`: natural widths (header and content, capped; the `sorted`
 * column's header with its mark). When the line is short, columns not kept (`keep`) give way first:
 * the rightmost of them is left out until the kept ones fit whole (or, when they cannot even
 * alone, at their minWidth), then `givesWay` ones shrink (the rightmost first), then the widest (`holdsWidth` ones,
 * then kept ones, last); leftover goes to `grow` columns. The first column is never left out
 * (it names the row). A column with a short form (Column.short) takes it when that lets a column
 * the full form leaves out be shown before the last kept one (the audit trail's actor at 60 columns);
 * a column after every kept one (HTTP) is not worth it.
 */
export function layoutColumns<Row>(
  columns: Column<Row>[],
  sample: Row[],
  width: number,
  sorted = -1,
  keep: readonly boolean[] = [],
): ColumnLayout {
  const full = layoutWith(columns, sample, width, sorted, keep, false);
  if (!columns.some((c) => c.short)) return full;
  const lastKept = columns.reduce((last, _, i) => (keep[i] === true ? i : last), -1);
  const before = (l: ColumnLayout) => l.shown.filter((i) => i <= lastKept).length;
  if (before(full) === columns.slice(0, lastKept + 1).length) return full;
  const short = layoutWith(columns, sample, width, sorted, keep, true);
  return before(short) > before(full) ? short : full;
}

function layoutWith<Row>(
  columns: Column<Row>[],
  sample: Row[],
  width: number,
  sorted: number,
  keep: readonly boolean[],
  short: boolean,
): ColumnLayout {
  const natural = columns.map((c, i) => {
    if (short && c.short) return c.short.width;
    if (c.width) return c.width;
    let w = widthOf(c.header) + (i === sorted ? SORT_MARK_WIDTH : 0);
    for (const r of sample) w = Math.max(w, widthOf(cellText(c, r)));
    return Math.min(w, c.maxWidth ?? 40);
  });
  const declaredMins = columns.map((c, i) =>
    (short && c.short) || c.width
      ? natural[i]
      : Math.min(
          natural[i],
          c.uniquePrefix ? Math.max(c.uniquePrefix, distinguishingLength(c, sample)) : (c.minWidth ?? 6),
        ),
  );
  const kept = (i: number) => keep[i] === true;
  const available = (n: number) => width - GUTTER - SEPARATOR * Math.max(0, n - 1);
  const need = (set: number[], keptWhole: boolean) =>
    set.reduce((sum, i) => sum + (keptWhole && kept(i) ? natural[i] : declaredMins[i]), 0);
  const fits = (set: number[], keptWhole: boolean) => need(set, keptWhole) <= available(set.length);
  // the rightmost column that is not the first, one not kept before any kept one
  const leftOut = (set: number[]) => {
    for (let n = set.length - 1; n > 0; n--) if (!kept(set[n])) return n;
    return set.length - 1;
  };
  const shown = columns.map((_, i) => i);
  // kept columns are kept whole when leaving every other column out would make room for them
  const keptWhole = fits(
    shown.filter((i, n) => n === 0 || kept(i)),
    true,
  );
  while (shown.length > 1 && !fits(shown, keptWhole)) shown.splice(leftOut(shown), 1);
  const mins = shown.map((i) => (keptWhole && kept(i) ? natural[i] : declaredMins[i]));
  const widths = shown.map((i) => natural[i]);
  const room = available(shown.length);
  const total = () => widths.reduce((a, b) => a + b, 0);
  // of the columns that give way, the rightmost first, as columns are left out (usage: its chart before its cost)
  for (let n = shown.length - 1; n >= 0; n--) {
    const i = shown[n];
    if (columns[i].givesWay && !kept(i)) widths[n] -= Math.max(0, Math.min(widths[n] - mins[n], total() - room));
  }
  // the widest narrows first: a column that holds its width only once no other can narrow, a kept one after it
  const rank = (i: number) => (kept(i) ? 2 : columns[i].holdsWidth ? 1 : 0);
  const narrowable = (r: number) => {
    let widest = -1;
    shown.forEach((i, n) => {
      if (rank(i) !== r || widths[n] <= mins[n]) return;
      if (widest < 0 || widths[n] > widths[widest]) widest = n;
    });
    return widest;
  };
  while (total() > room) {
    const widest = [0, 1, 2].map(narrowable).find((n) => n >= 0);
    if (widest === undefined) break;
    widths[widest]--;
  }
  // Leftover goes to `grow` columns, each up to its maxWidth; the rest stays blank on the right.
  let left = room - total();
  shown.forEach((i, n) => {
    if (left <= 0 || !columns[i].grow) return;
    const add = Math.min(left, Math.max(0, (columns[i].maxWidth ?? 40) - widths[n]));
    widths[n] += add;
    left -= add;
  });
  return { shown, widths: widths.map((w) => Math.max(0, w)) };
}

/**
 * The row said whole, for the lines under a list: its first cell, then each other cell after its
 * header ("Status active"), empty ones left out. The cells the table cut or left out come first
 * (`shownWhole` says which the table shows whole), so that a short line says those.
 */
export function rowSaidWhole<Row>(
  columns: Column<Row>[],
  row: Row,
  shownWhole: (column: Column<Row>, text: string) => boolean = () => false,
): string {
  const cells = columns.map((c) => ({ c, text: cellText(c, row) }));
  const [first, ...rest] = cells;
  if (!first) return '';
  const said = (x: (typeof cells)[number]) => (x.text === '–' ? [] : [`${x.c.header} ${x.text}`]);
  return [
    first.text,
    ...rest.filter((x) => !shownWhole(x.c, x.text)).flatMap(said),
    ...rest.filter((x) => shownWhole(x.c, x.text)).flatMap(said),
  ].join(' · ');
}

/**
 * The cells the table cut or left out, each after its header, but those `said` already holds: what a
 * screen's own cursor line (List.cursorLine) is followed by, so that nothing a short line dropped is lost.
 */
export function cellsCut<Row>(
  columns: Column<Row>[],
  row: Row,
  shownWhole: (column: Column<Row>, text: string) => boolean,
  said: string,
): string {
  return columns
    .map((c) => ({ c, text: cellText(c, row) }))
    .filter((x) => x.text !== '–' && !shownWhole(x.c, x.text) && !said.includes(x.text))
    .map((x) => `${x.c.header} ${x.text}`)
    .join(' · ');
}

/** Which columns the screen keeps in this state (Column.keep), by position; a throwing decision keeps nothing. */
export function keptColumns<Row>(columns: Column<Row>[], state: ScreenUiState): boolean[] {
  return columns.map((c) => {
    try {
      return typeof c.keep === 'function' ? c.keep(state) : c.keep === true;
    } catch {
      return false;
    }
  });
}
