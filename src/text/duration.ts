/**
 * One grammar for a length of time wherever one is typed (the poll interval, "the last 15m"): a
 * number and a unit, 500ms, 2s, 1.5m, 2h, 7d, 2w.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(\d{1,9}(?:\.\d{1,3})?)\s*(ms|s|m|h|d|w)?$/;

/**
 * The length in whole ms, or null when `text` is not one. A bare number counts in `bare` units
 * when given (the config file's `refresh: 2` is seconds), and is refused otherwise.
 */
export function durationMs(text: string, bare?: 's'): number | null {
  const m = DURATION.exec(text.trim());
  const unit = m?.[2] ?? bare;
  if (!m || !unit) return null;
  return Math.round(Number(m[1]) * UNIT_MS[unit]);
}
