/**
 * A gateway key's expiry as people type it (the keys screen's E, `appliance-admin keys expire`):
 * "30d", "12h" from now, a date or a date and time (UTC unless a zone is given), or "never" / empty
 * for none. One reading for both, as the appliance is sent it: RFC 3339 UTC.
 */
import { durationMs } from './duration.js';
import { isoSeconds, parseTimeInput } from './time-input.js';

export type ExpiryInput = { ok: true; expires_at: string | null } | { ok: false; error: string };

export const EXPIRY_INPUT_HINT = '30d, 12h, 2026-12-31, 2026-12-31 18:00, or empty for never';

export function parseExpiryInput(text: string, nowMs = Date.now()): ExpiryInput {
  const t = text.trim();
  if (t === '' || t.toLowerCase() === 'never') return { ok: true, expires_at: null };
  const ahead = durationMs(t);
  const at = ahead !== null ? isoSeconds(nowMs + ahead) : parseTimeInput(t, nowMs);
  if (at === null) return { ok: false, error: `not a time: ${EXPIRY_INPUT_HINT}` };
  if (Date.parse(at) <= nowMs) return { ok: false, error: 'must be in the future' };
  return { ok: true, expires_at: at };
}
