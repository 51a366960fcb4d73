/**
 * Times as people type them (the CLI's --since/--until, the dashboard's custom range) and as the
 * appliance is sent them: RFC 3339 UTC. One reading for both, so a time means the same everywhere.
 */
import { durationMs } from './duration.js';

/** RFC 3339 UTC to the whole second (2026-11-21T09:30:12Z): what a time computed here is sent as. */
export const isoSeconds = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

// A date, then optionally a time (seconds and a fraction optional), then optionally a zone; no zone is UTC.
const ABSOLUTE = /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?\s*([Zz]|[+-]\d{2}:\d{2})?$/;

/**
 * "15m", "2h", "7d", "2w" (that long before `nowMs`), or a date / date and time (2026-11-21,
 * 2026-11-21 09:30, 2026-11-21T09:30:00Z, 2026-11-21T10:30:00+01:00), as RFC 3339 UTC; null when
 * it is neither or names no real time (2026-02-30, 25:00).
 */
export function parseTimeInput(text: string, nowMs = Date.now()): string | null {
  const t = text.trim();
  const ago = durationMs(t);
  if (ago !== null) {
    const ms = nowMs - ago;
    return ms >= 0 ? isoSeconds(ms) : null;
  }
  const m = ABSOLUTE.exec(t);
  if (!m) return null;
  const [, date, hh = '00', mm = '00', ss = '00', fraction = '', zone = 'Z'] = m;
  // Date.parse rolls 2026-02-30 over into March: the calendar day must read back unchanged.
  const day = Date.parse(`${date}T00:00:00Z`);
  if (!Number.isFinite(day) || new Date(day).toISOString().slice(0, 10) !== date) return null;
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return null;
  const ms = Date.parse(`${date}T${hh}:${mm}:${ss}${fraction.slice(0, 4)}${zone.toUpperCase()}`);
  if (!Number.isFinite(ms)) return null;
  // a typed fraction is kept: an exclusive end of 09:30:12.345 must not become 09:30:12
  return ms % 1000 === 0 ? isoSeconds(ms) : new Date(ms).toISOString();
}
