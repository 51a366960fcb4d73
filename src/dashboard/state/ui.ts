import { createStore } from 'zustand/vanilla';

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

type UiMode = 'normal' | 'help' | 'command' | 'filter' | 'detail';
export interface Flash {
  text: string;
  tone: 'info' | 'warn' | 'bad' | 'ok';
  at: number;
}

export interface UiState {
  screen: string;
  screens: Record<string, ScreenUiState>;
  mode: UiMode;
  /** scroll offset of the detail view */
  detailScroll: number;
  /** one-line message in the status line (cleared by the next key) */
  flash: Flash | null;
  /** label of the action running now; other action keys wait */
  busy: string | null;
  /** the screens whose links opened this one, the nearest last: Esc returns there (src/dashboard/shell/navigate.ts) */
  backTo: string[];
}

export type UiStore = ReturnType<typeof createUiStore>;

export const EMPTY_SCREEN_STATE: ScreenUiState = Object.freeze({
  cursor: 0,
  selectedKey: null,
  scroll: 0,
  filter: '',
  extra: Object.freeze({}),
}) as ScreenUiState;

export function createUiStore(first: string) {
  return createStore<UiState>(() => ({
    screen: first,
    screens: {},
    mode: 'normal',
    detailScroll: 0,
    flash: null,
    busy: null,
    backTo: [],
  }));
}

export const screenState = (s: UiState, name: string): ScreenUiState => s.screens[name] ?? EMPTY_SCREEN_STATE;

export function patchScreen(store: UiStore, name: string, patch: Partial<ScreenUiState>) {
  store.setState((s) => ({ screens: { ...s.screens, [name]: { ...screenState(s, name), ...patch } } }));
}

export function flash(store: UiStore, text: string, tone: Flash['tone'] = 'info') {
  store.setState({ flash: { text, tone, at: Date.now() } });
}
