/**
 * Colours are decoration only: every coloured thing also says what it means in text.
 * NO_COLOR (https://no-color.org) turns colour off; bold, dim and inverse stay, since they
 * are not colour and carry the selection and the disabled state.
 */
export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'muted' | 'accent';

const TONE_COLOUR: Record<Tone, string> = {
  ok: 'green',
  warn: 'yellow',
  bad: 'red',
  info: 'cyan',
  muted: 'gray',
  accent: 'blue',
};

// NO_COLOR (no-color.org): any non-empty value turns colour off, decided once at start.
const enabled = !(typeof process.env.NO_COLOR === 'string' && process.env.NO_COLOR !== '');

/** The Ink `color` prop for a tone, or undefined when colour is off. */
export const colour = (tone: Tone | undefined): string | undefined => (tone && enabled ? TONE_COLOUR[tone] : undefined);

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
