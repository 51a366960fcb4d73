/** `2s`, `500ms`, `1m`, or a bare number of seconds: ms, or null when it is not one of those. */
export function intervalMs(text: string | number): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(String(text).trim());
  if (!m) return null;
  const n = Number(m[1]);
  return Math.round(m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000);
}

export const MIN_INTERVAL_MS = 200;
export const MAX_INTERVAL_MS = 3_600_000;
