import React, { memo, useMemo } from 'react';
import { Box, Text } from 'ink';
import type { Column } from './screen-api.js';
import { cellText, layoutColumns, scrollFor, GUTTER, SEPARATOR } from './table-layout.js';
import { fit } from './text.js';
import { colour } from './theme.js';

export interface TableProps<Row> {
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string;
  cursor: number;
  scroll: number;
  /** lines available: header + rows + position line */
  height: number;
  width: number;
  empty?: string;
  /** dims the cursor when another panel has the focus */
  focused?: boolean;
}

/** Rows a table of `height` lines shows at once. */
export const visibleRows = (height: number) => Math.max(1, height - 2);

/**
 * A navigable list: only the visible window of rows is rendered, columns are sized by display
 * width, long cells end in …, and the selected row carries a › marker as well as inverse video.
 * Memoized: the shell redraws every second for the header's clock, and a table whose rows,
 * cursor and size did not change need not be rebuilt for it (test/bench/RESULTS.md,
 * dashboard-idle). Callers pass stable columns, rows and rowKey (the screen's own).
 */
export const Table = memo(TableView) as typeof TableView;

function TableView<Row>(p: TableProps<Row>) {
  const visible = visibleRows(p.height);
  const scroll = scrollFor(p.cursor, p.scroll, visible, p.rows.length);
  const sample = useMemo(() => p.rows.slice(0, 500), [p.rows]);
  const widths = useMemo(() => layoutColumns(p.columns, sample, p.width), [p.columns, sample, p.width]);
  const cols = useMemo(() => p.columns.slice(0, widths.length), [p.columns, widths]);
  const window = p.rows.slice(scroll, scroll + visible);
  const headerLine = ' '.repeat(GUTTER) + cols.map((c, i) => fit(c.header, widths[i], c.align)).join(SEP);

  return (
    <Box flexDirection="column" height={p.height} overflowY="hidden">
      <Text bold underline wrap="truncate">{headerLine}</Text>
      {p.rows.length === 0 ? <Text dimColor wrap="truncate">  {p.empty ?? 'Nothing to show.'}</Text> : null}
      {/* keyed by position on screen: paging reuses the lines instead of remounting them */}
      {window.map((row, n) => (
        <TableRow key={n} row={row} selected={scroll + n === p.cursor} focused={p.focused !== false} cols={cols} widths={widths} />
      ))}
      <Box flexGrow={1} />
      <Text dimColor wrap="truncate">
        {p.rows.length === 0 ? ' ' : `  row ${p.cursor + 1} of ${p.rows.length}${p.rows.length > visible ? `  (showing ${scroll + 1}–${scroll + window.length})` : ''}`}
      </Text>
    </Box>
  );
}

const SEP = ' '.repeat(SEPARATOR);

interface RowProps<Row> { row: Row; selected: boolean; focused: boolean; cols: Column<Row>[]; widths: number[] }

/** One line; memoized, so moving the cursor redraws two lines, not the whole window. */
const TableRow = memo(function TableRow<Row>({ row, selected, focused, cols, widths }: RowProps<Row>) {
  return (
    <Text inverse={selected && focused} bold={selected} wrap="truncate">
      {selected ? '› ' : '  '}
      {cols.map((c, i) => (
        <Text key={i} color={colour(safeTone(c, row))}>
          {i > 0 ? SEP : ''}
          {fit(cellText(c, row), widths[i], c.align)}
        </Text>
      ))}
    </Text>
  );
}) as <Row>(p: RowProps<Row>) => React.ReactElement;

function safeTone<Row>(c: Column<Row>, row: Row) {
  try {
    return c.tone?.(row);
  } catch {
    return undefined;
  }
}
