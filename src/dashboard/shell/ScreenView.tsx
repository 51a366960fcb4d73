import React, { Component, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import { patchScreen } from '../state/ui.js';
import type { AnyScreen, ScreenRenderProps, Tone } from '../kit/screen-api.js';
import { Table, visibleRows } from '../widgets/Table.js';
import { keptColumns } from '../kit/table-layout.js';
import { sortColumn } from '../kit/sort.js';
import { colour } from '../kit/theme.js';
import { sanitize } from '../../text/sanitize.js';
import { chosenColumns } from './column-choice.js';
import { useDeps } from './deps.js';
import { intentKeyLabel } from './keymap.js';
import type { Intent } from '../../config/key-bindings.js';
import type { ScreenData } from './screen-data.js';
import type { ScreenUiState } from '../kit/screen-state.js';

/** Lines kept under a list's table for its cursor row said whole (fewer when the body is very short). */
const CURSOR_LINES = 2;

/** A list's lines above its table (summary, status), and those under it for the cursor row, at a body height. */
function listLines(list: NonNullable<AnyScreen['list']>, height: number) {
  const above = (list.summary ? 1 : 0) + (list.status ? 1 : 0);
  // a table needs its header, a row and its position line before the cursor row is said again
  return { above, cursorLines: Math.max(0, Math.min(CURSOR_LINES, height - above - 3)) };
}

/** Rows a list shows at once in a body of `height` lines: what PgDn moves. */
export function listPage(screen: AnyScreen, height: number): number {
  if (!screen.list) return visibleRows(height);
  const { above, cursorLines } = listLines(screen.list, height);
  return visibleRows(height - above, cursorLines);
}

/** A screen's body: the standard list, or its own view, guarded so a bug there stays there. */
export function ScreenView({
  screen,
  state,
  data,
  width,
  height,
}: {
  screen: AnyScreen;
  state: ScreenUiState;
  data: ScreenData;
  width: number;
  height: number;
}) {
  const deps = useDeps();
  const { primary } = data;
  if (primary.data === undefined && !screen.list?.rowsFrom && !screen.list?.fromActionLog) {
    const text = primary.status === 'error' ? 'No data: the request failed (see above). r retries.' : 'Loading…';
    return (
      <Box height={height}>
        <Text dimColor>{text}</Text>
      </Box>
    );
  }
  if (screen.list) {
    const list = screen.list;
    const keyOf = (intent: Intent) => intentKeyLabel(screen, intent, deps.keyOverrides);
    let summary: string | null = null;
    try {
      summary = list.summary
        ? list.summary(data.all, {
            data: primary.data,
            state,
            resources: data.resources,
            auditKey: deps.auditKey,
            keyOf,
          })
        : null;
    } catch {
      summary = null;
    }
    let status: { text: string; tone?: Tone } | null = null;
    try {
      status = list.status
        ? list.status(data.all, { data: primary.data, state, resources: data.resources, auditKey: deps.auditKey })
        : null;
    } catch {
      status = null;
    }
    // a filter the appliance applied is counted by the screen's summary, not by the rows of this page
    const filterNote =
      !state.filter || list.serverFilter
        ? ''
        : data.searching
          ? `  ·  searching ${data.total} rows for "${state.filter}"…`
          : `  ·  ${data.rows.length} of ${data.total} match "${state.filter}"`;
    const { above, cursorLines } = listLines(list, height);
    return (
      <Box flexDirection="column" height={height}>
        {list.summary ? (
          <Text wrap="truncate">
            {sanitize(summary ?? '', 300)}
            {filterNote}
          </Text>
        ) : null}
        {list.status ? (
          <Text wrap="truncate" color={status?.tone ? colour(status.tone) : undefined}>
            {sanitize(status?.text ?? '', 300) || ' '}
          </Text>
        ) : null}
        <Table
          columns={chosenColumns(list.columns, state.columns)}
          rows={data.rows}
          layoutRows={data.all}
          counting={data.searching}
          sort={list.serverOrder ?? (sortColumn(list.columns, state.sort) ? state.sort : null)}
          cursor={state.cursor}
          scroll={state.scroll}
          height={height - above}
          width={width}
          empty={
            state.filter
              ? `No rows match "${state.filter}" (Esc clears the filter).`
              : typeof list.empty === 'function'
                ? list.empty(state)
                : list.empty
          }
          keep={keptColumns(list.columns, state)}
          cursorLines={cursorLines}
          cursorLine={list.cursorLine}
          rowColumns={list.columns}
        />
      </Box>
    );
  }
  const setExtra = (patch: Record<string, unknown>) =>
    patchScreen(deps.ui, screen.name, { extra: { ...state.extra, ...patch } });
  const setScroll = (scroll: number) => patchScreen(deps.ui, screen.name, { scroll });
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Guard key={screen.name} name={screen.name} data={data.resources}>
        <CustomBody
          render={screen.render!}
          props={{ state, resources: data.resources, width, height, setExtra, setScroll }}
        />
      </Guard>
    </Box>
  );
}

/** A component boundary, so the guard below catches what the screen's render throws. */
function CustomBody({ render, props }: { render: NonNullable<AnyScreen['render']>; props: ScreenRenderProps }) {
  return <>{render(props)}</>;
}

/**
 * Shows what a screen's render threw instead of the screen, until its data changes (`data`: the
 * screen's resources): a newer answer, or the same one read again with the contract's check after
 * the first frame (src/dashboard/shell/start.ts), gets another try.
 */
class Guard extends Component<{ name: string; data: unknown; children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override componentDidUpdate(before: { data: unknown }) {
    if (this.state.error && before.data !== this.props.data) this.setState({ error: null });
  }
  override render() {
    if (this.state.error) {
      return (
        <Text color={colour('bad')}>
          ✕ the {this.props.name} screen failed to draw: {sanitize(this.state.error.message, 200)}
        </Text>
      );
    }
    return this.props.children;
  }
}
