import { createStore } from 'zustand/vanilla';

/**
 * Colours are decoration only: every coloured thing also says what it means in text.
 * NO_COLOR (https://no-color.org) turns colour off; bold, dim and inverse stay, since they
 * are not colour and carry the selection and the disabled state.
 */
export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'muted' | 'accent';

/**
 * A theme is a table of tones to colours. Only chalk's colour names: Ink's Text and the table's
 * painted lines (src/dashboard/widgets/Table.tsx) both take them, and the terminal maps them to its own palette.
 */
const THEMES = {
  // today's colours, for a dark background
  dark: { ok: 'green', warn: 'yellow', bad: 'red', info: 'cyan', muted: 'gray', accent: 'blue' },
  // for a white background: dark tones only, no white, yellow or cyan text
  light: { ok: 'green', warn: 'magenta', bad: 'red', info: 'blue', muted: 'blackBright', accent: 'blue' },
  // the bright tones, and muted is white rather than grey
  'high-contrast': {
    ok: 'greenBright',
    warn: 'yellowBright',
    bad: 'redBright',
    info: 'cyanBright',
    muted: 'white',
    accent: 'blueBright',
  },
} satisfies Record<string, Record<Tone, string>>;

export type ThemeName = keyof typeof THEMES;
export const THEME_NAMES = Object.keys(THEMES) as ThemeName[];
export const isThemeName = (name: string): name is ThemeName => Object.hasOwn(THEMES, name);

/** The theme in use, one per process (as NO_COLOR is): `--theme`, then `:theme` changes it. */
export const themeStore = createStore<{ name: ThemeName }>(() => ({ name: 'dark' }));

// NO_COLOR (no-color.org): any non-empty value turns colour off, decided once at start.
const enabled = !(typeof process.env.NO_COLOR === 'string' && process.env.NO_COLOR !== '');

/** The Ink `color` prop for a tone, or undefined when colour is off; NO_COLOR wins over any theme. */
export const colour = (tone: Tone | undefined): string | undefined =>
  tone && enabled ? THEMES[themeStore.getState().name][tone] : undefined;

/** A small fixed vocabulary of states to tones; unknown states are neutral. */
const STATE_TONES: Record<string, Tone> = {
  healthy: 'ok',
  active: 'ok',
  enabled: 'ok',
  succeeded: 'ok',
  success: 'ok',
  passed: 'ok',
  done: 'ok',
  present: 'ok',
  ok: 'ok',
  syncing: 'info',
  running: 'info',
  queued: 'info',
  installing: 'info',
  pending: 'info',
  degraded: 'warn',
  warning: 'warn',
  skipped: 'muted',
  blocked: 'warn',
  denied: 'warn',
  error: 'bad',
  failed: 'bad',
  down: 'bad',
  missing: 'bad',
  revoked: 'muted',
  disabled: 'muted',
  cancelled: 'muted',
};
export const toneOf = (state: unknown): Tone | undefined =>
  typeof state === 'string' ? STATE_TONES[state.toLowerCase()] : undefined;

/** Glyph paired with a tone so the meaning survives without colour. */
const TONE_MARK: Record<Tone, string> = { ok: '●', warn: '▲', bad: '✕', info: '◌', muted: '○', accent: '◆' };
export const markOf = (tone: Tone | undefined): string => (tone ? TONE_MARK[tone] : '·');
