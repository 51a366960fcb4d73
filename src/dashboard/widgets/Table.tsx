import React, { useEffect, useMemo } from 'react';
import { Box, Text } from 'ink';
import chalk from 'chalk';
import sliceAnsi from 'slice-ansi';
import type { Column } from '../kit/screen-api.js';
import { BoundedMap } from '../../text/bounded-map.js';
import widestLine from '../terminal/ink-frame/widest-line.js';
import {
  fitCell,
  layoutColumns,
  cellsCut,
  rowSaidWhole,
  scrollFor,
  GUTTER,
  SEPARATOR,
  SORT_MARK_WIDTH,
} from '../kit/table-layout.js';
import { sanitize } from '../../text/sanitize.js';
import { sortMark } from '../kit/sort.js';
import type { SortState } from '../kit/screen-state.js';
import { fit, truncate, widthOf } from '../kit/text.js';
import { colour } from '../kit/theme.js';

export interface TableProps<Row> {
  columns: Column<Row>[];
  rows: Row[];
  cursor: number;
  scroll: number;
  /** lines available: header + rows + position line */
  height: number;
  width: number;
  empty?: string;
  /** dims the cursor when another panel has the focus */
  focused?: boolean;
  /**
   * the rows column widths are measured on (default `rows`): the list before its filter, so that
   * columns stay put while a filter is typed and are not measured again on every key
   */
  layoutRows?: Row[];
  /** more rows are coming (a filter still searching): the count is shown as "at least" */
  counting?: boolean;
  /** the order the rows are in: its column's header carries ▲ or ▼ */
  sort?: SortState | null;
  /** the columns kept when the line is short, by position (src/dashboard/kit/table-layout.ts keptColumns) */
  keep?: readonly boolean[];
  /**
   * lines under the table that say the cursor row whole (what its cells cut or leave out); 0: none.
   * They are part of `height`.
   */
  cursorLines?: number;
  /** the cursor row's own words for those lines, followed by the cells cut that they do not say (default: every cell after its header, rowSaidWhole) */
  cursorLine?: (row: Row) => string;
  /** the columns those lines say (default `columns`): all of the list's, also those the operator hid */
  rowColumns?: Column<Row>[];
}

/** Rows a table of `height` lines shows at once, `cursorLines` of them kept for the cursor row said whole. */
export const visibleRows = (height: number, cursorLines = 0) => Math.max(1, height - 2 - cursorLines);

/** Finished lines kept per table layout: the window and the pages on either side, several times over. */
const LINES_KEPT = 1000;

/**
 * A navigable list: only the visible window of rows is rendered, columns are sized by display
 * width, long cells end in …, and the selected row carries a › marker as well as inverse video.
 *
 * The window is one Text of finished lines, not a Text per row: a page of new rows is one node for
 * React, Yoga and Ink to update instead of thirty or more, and Ink's frame builder still redraws
 * only the lines that changed (docs/performance.md). Each row's line is built
 * once per layout and kept; after a frame the pages on either side are built while the dashboard
 * waits for the next key, so PgDn/PgUp and j/k at a page's edge find their lines ready.
 */
export function Table<Row>(p: TableProps<Row>) {
  const cursorLines = p.cursorLines ?? 0;
  const visible = visibleRows(p.height, cursorLines);
  const scroll = scrollFor(p.cursor, p.scroll, visible, p.rows.length);
  const layoutRows = p.layoutRows ?? p.rows;
  const sample = useMemo(() => layoutRows.slice(0, 500), [layoutRows]);
  const sorted = p.sort ? p.columns.findIndex((c) => c.header === p.sort!.column) : -1;
  const keepKey = p.keep?.map((k) => (k ? 1 : 0)).join('') ?? '';
  const { shown, widths } = useMemo(
    () => layoutColumns(p.columns, sample, p.width, sorted, p.keep),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- what is kept, by value: a new array of the same says the same
    [p.columns, sample, p.width, sorted, keepKey],
  );
  const lines = useMemo(
    () =>
      new RowLines(
        shown.map((i) => p.columns[i]),
        widths,
      ),
    [p.columns, shown, widths],
  );
  const headerLine =
    ' '.repeat(GUTTER) +
    lines.cols
      .map((c, n) => {
        // a column in its short form says so in its header too ('Time (UTC)' → 'UTC')
        const header = c.short && widths[n] <= c.short.width ? (c.short.header ?? c.header) : c.header;
        return fit(
          shown[n] === sorted ? markedHeader(header, widths[n], p.sort!.descending) : header,
          widths[n],
          c.align,
        );
      })
      .join(SEP);
  const focused = p.focused !== false;
  const window = p.rows.slice(scroll, scroll + visible);
  const body = fitWidth(
    window.map((row, n) => marked(lines.of(row), scroll + n === p.cursor, focused)).join('\n'),
    p.width,
  );

  const { rows } = p;
  useEffect(() => {
    const ahead = setImmediate(() => {
      // a full store empties itself: better here, between keys, than while a key is drawn
      lines.reserve(3 * visible);
      for (let i = Math.max(0, scroll - visible); i < Math.min(rows.length, scroll + 2 * visible); i++)
        lines.of(rows[i]);
    });
    return () => clearImmediate(ahead);
  }, [rows, scroll, visible, lines]);

  return (
    <Box flexDirection="column" height={p.height} overflowY="hidden">
      <Text bold underline wrap="truncate">
        {headerLine}
      </Text>
      {p.rows.length === 0 ? (
        <Text dimColor wrap="truncate">
          {' '}
          {p.empty ?? 'Nothing to show.'}
        </Text>
      ) : (
        <Text wrap="truncate">{body}</Text>
      )}
      <Box flexGrow={1} />
      <Text dimColor wrap="truncate">
        {p.rows.length === 0
          ? ' '
          : `  row ${p.cursor + 1} of ${p.rows.length}${p.counting ? '+' : ''}${p.rows.length > visible ? `  (showing ${scroll + 1}–${scroll + window.length})` : ''}`}
      </Text>
      {cursorLines > 0 ? (
        <Box height={cursorLines} overflow="hidden">
          <Text dimColor wrap="wrap">
            {cursorText(p, cursorLines, lines)}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}

/** The cursor row said whole, for the lines under the table: sanitized, one paragraph; what the table cuts first. */
function cursorText<Row>(p: TableProps<Row>, lines: number, shown: RowLines<Row>): string {
  const row = p.rows[p.cursor];
  if (row === undefined) return ' ';
  const whole = (c: Column<Row>, text: string) => {
    const n = shown.cols.indexOf(c);
    return n >= 0 && widthOf(text) <= shown.widthOf(n);
  };
  try {
    const columns = p.rowColumns ?? p.columns;
    const own = p.cursorLine?.(row);
    const text =
      own === undefined
        ? rowSaidWhole(columns, row, whole)
        : [own, cellsCut(columns, row, whole, own)].filter(Boolean).join(' · ');
    return sanitize(text, lines * p.width) || ' ';
  } catch {
    return ' ';
  }
}

/** "Last used ▼": the header cut (not the mark) when the column is narrow. */
const markedHeader = (header: string, width: number, descending: boolean) =>
  `${truncate(header, Math.max(1, width - SORT_MARK_WIDTH))} ${sortMark(descending)}`;

/** Each row's line for one set of columns and widths, built on first use and kept. */
class RowLines<Row> {
  private readonly kept = new BoundedMap<Row, string>(LINES_KEPT);
  constructor(
    readonly cols: Column<Row>[],
    private readonly widths: number[],
  ) {}

  /** The width of the nth column shown. */
  widthOf(n: number): number {
    return this.widths[n] ?? 0;
  }

  /** Empties the store if `count` more lines might not fit in it. */
  reserve(count: number) {
    if (this.kept.size + count > this.kept.limit) this.kept.clear();
  }

  /** The row's cells, fitted and coloured (colours from chalk, as Ink's own Text colours are). */
  of(row: Row): string {
    let line = this.kept.get(row);
    if (line === undefined) {
      line = '';
      this.cols.forEach((c, i) => {
        line += paint(`${i > 0 ? SEP : ''}${fitCell(c, row, this.widths[i])}`, colour(safeTone(c, row)));
      });
      this.kept.set(row, line);
    }
    return line;
  }
}

/** The gutter, and for the selected row bold and (when the table has the focus) inverse video, as Ink's Text applies them. */
function marked(line: string, selected: boolean, focused: boolean): string {
  if (!selected) return `  ${line}`;
  const bold = chalk.bold(`› ${line}`);
  return focused ? chalk.inverse(bold) : bold;
}

/**
 * Lines are fitted to the table's width by construction. Ink would cut a text wider than its box
 * as one line, losing every line after the first, so a line that is somehow wider is cut here.
 */
function fitWidth(body: string, width: number): string {
  if (widestLine(body) <= width) return body;
  return body
    .split('\n')
    .map((l) => sliceAnsi(l, 0, width))
    .join('\n');
}

function paint(text: string, color: string | undefined): string {
  const style = color ? (chalk as unknown as Record<string, ((s: string) => string) | undefined>)[color] : undefined;
  return typeof style === 'function' ? style(text) : text;
}

const SEP = ' '.repeat(SEPARATOR);

function safeTone<Row>(c: Column<Row>, row: Row) {
  try {
    return c.tone?.(row);
  } catch {
    return undefined;
  }
}
