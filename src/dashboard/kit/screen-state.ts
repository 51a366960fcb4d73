/** What the shell keeps for each screen, and hands to its resources() and summary(). */

/** The order a list is shown in: by the column with this header. */
export interface SortState {
  column: string;
  descending: boolean;
}

/** What each screen remembers while another one is shown. */
export interface ScreenUiState {
  cursor: number;
  /** key of the selected row: the cursor follows it when rows move (new rows on top) */
  selectedKey: string | null;
  scroll: number;
  filter: string;
  /** the column a list is sorted by (s, S); none: the appliance's order */
  sort?: SortState | null;
  /** the list's columns shown, by header and in order (`:columns`); none: the screen's own */
  columns?: string[] | null;
  /** screen-owned state (time range, paging cursor, …), read by its resources() */
  extra: Record<string, unknown>;
}

/** A screen as first opened: top of the list, no filter, no sort. */
export const EMPTY_SCREEN_STATE: ScreenUiState = Object.freeze({
  cursor: 0,
  selectedKey: null,
  scroll: 0,
  filter: '',
  extra: Object.freeze({}),
}) as ScreenUiState;
