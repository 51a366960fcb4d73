import { createStore } from 'zustand/vanilla';
import { EMPTY_SCREEN_STATE, type ScreenUiState } from '../kit/screen-state.js';

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
