import type { screenState } from '../state/ui.js';
import type { AnyScreen, ScreenLink } from '../kit/screen-api.js';
import type { ScreenData } from './screen-data.js';

// A screen's rows as the shell reads them: a screen's own functions may throw on an answer they
// did not expect, and the shell then falls back rather than crash.

/**
 * The selected row's index: where its key is now (found), else the remembered position (not
 * found: no key yet, or its record left the list).
 */
export function locateRow(
  screen: AnyScreen,
  rows: unknown[],
  state: { cursor: number; selectedKey: string | null },
): { index: number; found: boolean } {
  if (state.selectedKey !== null) {
    // usually the row is still where the cursor left it: no search through a long list
    const at = state.cursor < rows.length ? rows[state.cursor] : undefined;
    if (at !== undefined && safeKey(screen, at) === state.selectedKey) return { index: state.cursor, found: true };
    const i = rows.findIndex((r) => safeKey(screen, r) === state.selectedKey);
    if (i >= 0) return { index: i, found: true };
  }
  return { index: Math.max(0, Math.min(state.cursor, rows.length - 1)), found: false };
}

/** Where Enter on this row leads, when its screen links rows elsewhere; a throwing link is no link. */
export function linkOf(screen: AnyScreen, row: unknown): ScreenLink | null {
  try {
    return screen.open?.(row) ?? null;
  } catch {
    return null;
  }
}

/** The row under a custom view's cursor, when it has one; a throwing view has none. */
export function selectedOf(screen: AnyScreen, data: ScreenData, state: ReturnType<typeof screenState>): unknown {
  try {
    return screen.selected?.(data.resources, state);
  } catch {
    return undefined;
  }
}

/** What Enter shows for a row: the screen's view of it, or the row itself if that view fails. */
export function detailOf(screen: AnyScreen, row: unknown): unknown {
  try {
    return screen.detail ? screen.detail(row) : row;
  } catch {
    return row;
  }
}

/** Always a string, so that a key compares equal to itself (an id sent as NaN or an object would not). */
export function safeKey(screen: AnyScreen, row: unknown): string {
  try {
    return screen.list ? String(screen.list.rowKey(row)) : screen.title;
  } catch {
    return screen.title;
  }
}
