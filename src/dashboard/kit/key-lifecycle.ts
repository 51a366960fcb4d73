/**
 * A gateway key's expiry, rotation grace and idleness in words, and the keys screen's unused-key
 * filter: shared by the keys screen, the overview's triage rules and `appliance-admin keys`, so
 * that all three say the same thing about the same key.
 */
import type { GatewayKey } from '../../contract/index.js';
import { thousands } from '../../text/thousands.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The overview warns this long before a key expires. */
export const EXPIRY_WARNING_DAYS = 7;
/** An active key idle this long is an overview watch item, and the keys screen's first `U` filter. */
export const UNUSED_DAYS = 30;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * A time to come in whole units, rounded down once a minute is added: an expiry set "3d" ahead
 * still reads "3 days" the moment after, and a day and 23 hours never reads "2 days".
 */
function span(ms: number): [number, 'day' | 'hour' | 'minute'] {
  const t = ms + MINUTE;
  if (t >= DAY) return [Math.floor(t / DAY), 'day'];
  if (t >= HOUR) return [Math.floor(t / HOUR), 'hour'];
  return [Math.max(1, Math.floor(ms / MINUTE)), 'minute'];
}

/** "3 days", "5 hours", "12 minutes". */
function spanText(ms: number): string {
  const [n, unit] = span(ms);
  return plural(n, unit);
}
const UNIT_SHORT = { day: 'd', hour: 'h', minute: 'min' } as const;

const timeOf = (iso: string | null | undefined): number => (typeof iso === 'string' ? Date.parse(iso) : NaN);

/** The key has expired (the gateway refuses it, cause `expired`). */
export const isExpired = (k: Pick<GatewayKey, 'expires_at'>, nowMs = Date.now()): boolean =>
  timeOf(k.expires_at) <= nowMs;

/** The Expires cell: "–" (never), "in 3 d", "in 5 h", "in 12 min", "expired". */
export function expiresCell(k: Pick<GatewayKey, 'expires_at'>, nowMs = Date.now()): string {
  const at = timeOf(k.expires_at);
  if (!Number.isFinite(at)) return '–';
  const left = at - nowMs;
  if (left <= 0) return 'expired';
  const [n, unit] = span(left);
  return `in ${n} ${UNIT_SHORT[unit]}`;
}

const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** "expires in 3 days (2026-12-02 14:00 UTC)", "expired at …", or null when it does not expire. */
export function expiryText(k: Pick<GatewayKey, 'expires_at'>, nowMs = Date.now()): string | null {
  const at = timeOf(k.expires_at);
  if (!Number.isFinite(at)) return null;
  return at <= nowMs ? `expired at ${utc(at)}` : `expires in ${spanText(at - nowMs)} (${utc(at)})`;
}

/** The replaced secret still works (its grace has not ended). */
export const inGrace = (k: Pick<GatewayKey, 'previous_valid_until'>, nowMs = Date.now()): boolean =>
  timeOf(k.previous_valid_until) > nowMs;

/**
 * "rotated, old secret valid until 14:05 UTC" while the grace runs (with the day when it is not
 * today), "rotated 2026-11-20 09:30 UTC" after; null for a key never rotated.
 */
export function rotationText(
  k: Pick<GatewayKey, 'rotated_at' | 'previous_valid_until'>,
  nowMs = Date.now(),
): string | null {
  const rotated = timeOf(k.rotated_at);
  if (!Number.isFinite(rotated)) return null;
  const until = timeOf(k.previous_valid_until);
  if (!(until > nowMs)) return `rotated ${utc(rotated)}`;
  const sameDay = new Date(until).toISOString().slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10);
  return `rotated, old secret valid until ${sameDay ? `${new Date(until).toISOString().slice(11, 16)} UTC` : utc(until)}`;
}

/**
 * The keys screen's lifecycle filter, in its state's `extra.unused`: `U` cycles keys idle 30 days
 * and never used; the overview's expiry line opens it on the keys expiring within 7 days. Each is
 * asked of the appliance (listFilterQuery), which finds them among every key.
 */
const UNUSED_FILTERS = ['30d', 'never', 'expiring'] as const;
export type UnusedFilter = (typeof UNUSED_FILTERS)[number];
export const unusedFilterOf = (extra: Record<string, unknown> | undefined): UnusedFilter | null =>
  UNUSED_FILTERS.includes(extra?.unused as UnusedFilter) ? (extra!.unused as UnusedFilter) : null;
/** The filter after `current` as `U` cycles: off, 30 days, never used, off (from expiring: off). */
export const nextUnusedFilter = (current: UnusedFilter | null): UnusedFilter | null =>
  current === null ? '30d' : current === '30d' ? 'never' : null;
export const UNUSED_FILTER_WORDS: Record<UnusedFilter, string> = {
  '30d': `active keys unused for ${UNUSED_DAYS} days`,
  never: 'active keys never used',
  expiring: `active keys expiring within ${EXPIRY_WARNING_DAYS} days`,
};
/** The keys list's query for a filter: the appliance answers it over every key, with how many. */
export function listFilterQuery(
  filter: UnusedFilter | null,
): { unused_days: number } | { never_used: 'true' } | { expires_within_days: number } | Record<string, never> {
  if (filter === '30d') return { unused_days: UNUSED_DAYS };
  if (filter === 'never') return { never_used: 'true' };
  if (filter === 'expiring') return { expires_within_days: EXPIRY_WARNING_DAYS };
  return {};
}

/** "12", or "more than 10,000" when the appliance stopped counting (the list's `total_capped`). */
export function countOf(page: unknown, fallback: number): { n: number; text: string } {
  const p = page as { total?: unknown; total_capped?: unknown } | undefined;
  const n = typeof p?.total === 'number' && Number.isFinite(p.total) ? p.total : fallback;
  const text = thousands(n);
  return { n, text: p?.total_capped === true ? `more than ${text}` : text };
}
