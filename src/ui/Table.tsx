import React, { useMemo } from 'react';
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
 */
export function Table<Row>(p: TableProps<Row>) {
  const visible = visibleRows(p.height);
  const scroll = scrollFor(p.cursor, p.scroll, visible, p.rows.length);
  const sample = useMemo(() => p.rows.slice(0, 500), [p.rows]);
  const widths = useMemo(() => layoutColumns(p.columns, sample, p.width), [p.columns, sample, p.width]);
  const cols = p.columns.slice(0, widths.length);
  const window = p.rows.slice(scroll, scroll + visible);
  const sep = ' '.repeat(SEPARATOR);
  const headerLine = ' '.repeat(GUTTER) + cols.map((c, i) => fit(c.header, widths[i], c.align)).join(sep);

  return (
    <Box flexDirection="column" height={p.height} overflowY="hidden">
      <Text bold underline wrap="truncate">{headerLine}</Text>
      {p.rows.length === 0 ? <Text dimColor wrap="truncate">  {p.empty ?? 'Nothing to show.'}</Text> : null}
      {window.map((row, n) => {
        const index = scroll + n;
        const selected = index === p.cursor;
        return (
          <Text key={safeKey(p.rowKey, row, index)} inverse={selected && p.focused !== false} bold={selected} wrap="truncate">
            {selected ? '› ' : '  '}
            {cols.map((c, i) => {
              const text = fit(cellText(c, row), widths[i], c.align);
              const tone = safeTone(c, row);
              return (
                <Text key={i} color={colour(tone)}>
                  {i > 0 ? sep : ''}
                  {text}
                </Text>
              );
            })}
          </Text>
        );
      })}
      <Box flexGrow={1} />
      <Text dimColor wrap="truncate">
        {p.rows.length === 0 ? ' ' : `  row ${p.cursor + 1} of ${p.rows.length}${p.rows.length > visible ? `  (showing ${scroll + 1}–${scroll + window.length})` : ''}`}
      </Text>
    </Box>
  );
}

function safeKey<Row>(rowKey: (r: Row) => string, row: Row, index: number): string {
  try {
    return `${rowKey(row)}#${index}`;
  } catch {
    return `#${index}`;
  }
}

function safeTone<Row>(c: Column<Row>, row: Row) {
  try {
    return c.tone?.(row);
  } catch {
    return undefined;
  }
}
