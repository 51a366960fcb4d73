import React, { memo, useMemo } from 'react';
import { Box, Text } from 'ink';
import chalk from 'chalk';
import type { Column } from './screen-api.js';
import { cellText, layoutColumns, scrollFor, GUTTER, SEPARATOR } from './table-layout.js';
import { fit } from './text.js';
import { colour } from './theme.js';

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
}

/** Rows a table of `height` lines shows at once. */
export const visibleRows = (height: number) => Math.max(1, height - 2);

/**
 * A navigable list: only the visible window of rows is rendered, columns are sized by display
 * width, long cells end in …, and the selected row carries a › marker as well as inverse video.
 */
export function Table<Row>(p: TableProps<Row>) {
  const visible = visibleRows(p.height);
  const scroll = scrollFor(p.cursor, p.scroll, visible, p.rows.length);
  const layoutRows = p.layoutRows ?? p.rows;
  const sample = useMemo(() => layoutRows.slice(0, 500), [layoutRows]);
  const widths = useMemo(() => layoutColumns(p.columns, sample, p.width), [p.columns, sample, p.width]);
  const cols = useMemo(() => p.columns.slice(0, widths.length), [p.columns, widths]);
  const window = p.rows.slice(scroll, scroll + visible);
  const headerLine = ' '.repeat(GUTTER) + cols.map((c, i) => fit(c.header, widths[i], c.align)).join(SEP);

  return (
    <Box flexDirection="column" height={p.height} overflowY="hidden">
      <Text bold underline wrap="truncate">{headerLine}</Text>
      {p.rows.length === 0 ? <Text dimColor wrap="truncate">  {p.empty ?? 'Nothing to show.'}</Text> : null}
      {/* Keyed by index modulo the window: scrolling by one moves one line and redraws the one
          that came in, and paging by a window redraws the lines in place; neither remounts
          them (test/bench/RESULTS.md, dashboard-keys). */}
      {window.map((row, n) => (
        <TableRow key={(scroll + n) % visible} row={row} selected={scroll + n === p.cursor} focused={p.focused !== false} cols={cols} widths={widths} />
      ))}
      <Box flexGrow={1} />
      <Text dimColor wrap="truncate">
        {p.rows.length === 0 ? ' ' : `  row ${p.cursor + 1} of ${p.rows.length}${p.counting ? '+' : ''}${p.rows.length > visible ? `  (showing ${scroll + 1}–${scroll + window.length})` : ''}`}
      </Text>
    </Box>
  );
}

interface RowProps<Row> { row: Row; selected: boolean; focused: boolean; cols: Column<Row>[]; widths: number[] }

/**
 * One line, built once as one styled string. Memoized: a cursor move or the header's clock redraws
 * the frame, and rows that did not change are neither recomputed nor diffed again; one string
 * instead of a Text per cell leaves Ink a tenth of the nodes to walk each frame
 * (test/bench/RESULTS.md, dashboard-keys). Colours come from chalk, as Ink's own Text colours do.
 */
const TableRow = memo(function TableRow<Row>({ row, selected, focused, cols, widths }: RowProps<Row>) {
  let line = selected ? '› ' : '  ';
  cols.forEach((c, i) => {
    line += paint(`${i > 0 ? SEP : ''}${fit(cellText(c, row), widths[i], c.align)}`, colour(safeTone(c, row)));
  });
  return (
    <Text inverse={selected && focused} bold={selected} wrap="truncate">
      {line}
    </Text>
  );
}) as <Row>(p: RowProps<Row>) => React.ReactElement;

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
