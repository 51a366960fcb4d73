import { ApiError } from '../errors.js';

/**
 * Fairness between callers of text search: each principal may spend MS_PER_SECOND of the server's
 * thread a second on its searches, with a burst of BURST_MS. A caller past it gets 429 with
 * Retry-After until its allowance is back above zero; a refused request costs nothing more, as it
 * read nothing. Time is what a search takes from everyone else (search.ts bounds each request;
 * this bounds how many one token holder sends).
 */
export const MS_PER_SECOND = 100;
export const BURST_MS = 500;
/** principals remembered at once; the one charged longest ago is forgotten first (its allowance is full again) */
const REMEMBERED = 10_000;

export interface SearchAllowance {
  /** runs `read`, a search of `who`'s, and charges its time; throws 429 while `who` has spent its allowance */
  spend<T>(who: string, read: () => T): T;
}

export function searchAllowance(
  clock: { now(): number; elapsed(): number } = { now: () => Date.now(), elapsed: () => performance.now() },
  limits = { msPerSecond: MS_PER_SECOND, burstMs: BURST_MS },
): SearchAllowance {
  // ms left per principal and when last counted; a Map keeps insertion order for forgetting
  const left = new Map<string, { ms: number; at: number }>();
  const current = (who: string) => {
    const t = clock.now();
    const s = left.get(who);
    const ms = s ? Math.min(limits.burstMs, s.ms + ((t - s.at) / 1000) * limits.msPerSecond) : limits.burstMs;
    return { ms, at: t };
  };
  return {
    spend(who, read) {
      const before = current(who);
      if (before.ms <= 0) {
        const seconds = Math.max(1, Math.ceil((-before.ms / limits.msPerSecond) * 1000) / 1000);
        const retry = Math.ceil(seconds);
        throw new ApiError(429, `too many searches: this caller's search time is spent; try again in ${retry} s`, {
          headers: { 'retry-after': String(retry) },
        });
      }
      const start = clock.elapsed();
      try {
        return read();
      } finally {
        const c = current(who);
        left.delete(who);
        left.set(who, { ms: c.ms - (clock.elapsed() - start), at: c.at });
        if (left.size > REMEMBERED) left.delete(left.keys().next().value!);
      }
    },
  };
}
