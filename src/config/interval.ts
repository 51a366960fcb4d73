import { durationMs } from '../text/duration.js';

/** The poll interval's bounds: faster would load the appliance, slower shows stale data as current. */
const MIN_INTERVAL_MS = 200;
const MAX_INTERVAL_MS = 3_600_000;

/**
 * The poll interval in ms from `2s`, `500ms`, `1m` or a bare number of seconds (the config file's
 * `refresh: 2`), or what is wrong with it, naming it as `what` ("--refresh", "the interval").
 */
export function readInterval(text: string | number, what: string): number | string {
  const ms = durationMs(String(text), 's');
  if (ms === null) return `${what} must look like 2s, 500ms or 1m, got ${String(text)}`;
  if (ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS) return `${what} must be between 200ms and 60m`;
  return ms;
}
