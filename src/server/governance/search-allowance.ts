import { ApiError } from '../errors.js';

/**
 * Fairness between callers of text search (search.ts bounds each request; this bounds what they
 * take together from the server's one thread):
 * - searches run one per turn of the event loop, queued: every other request that arrived
 *   meanwhile (an admin GET, a gateway call) is served between two searches, not after all of them;
 * - a caller has at most IN_FLIGHT searches queued or running;
 * - a caller may spend MS_PER_SECOND of the thread a second on searches, with a burst of BURST_MS.
 * Past either limit a caller gets 429 with Retry-After; a refused request costs nothing more, as it
 * read nothing. Measured: test/bench/server-search.
 */
const IN_FLIGHT = 4;
const MS_PER_SECOND = 100;
const BURST_MS = 500;
/** callers remembered at once; the one charged longest ago is forgotten first (its allowance is full again) */
const REMEMBERED = 10_000;

export interface SearchAllowance {
  /** runs `read`, a search of `who`'s, in its turn and charges its time; 429 past `who`'s limits */
  spend<T>(who: string, read: () => T): Promise<T>;
  /**
   * One of `who`'s searches under way for as long as an export with a text search streams (it reads
   * a window a turn, never all at once): 429 past `who`'s limits; call what it returns once done.
   */
  hold(who: string): () => void;
}

const tooMany = (detail: string, seconds: number) =>
  new ApiError(429, `too many searches: ${detail}; try again in ${seconds} s`, {
    headers: { 'retry-after': String(seconds) },
  });

export function searchAllowance(
  clock: { now(): number; elapsed(): number } = { now: () => Date.now(), elapsed: () => performance.now() },
  limits = { msPerSecond: MS_PER_SECOND, burstMs: BURST_MS, inFlight: IN_FLIGHT },
): SearchAllowance {
  // ms left per caller and when last counted; a Map keeps insertion order for forgetting
  const left = new Map<string, { ms: number; at: number }>();
  const inFlight = new Map<string, number>();
  const turns: (() => void)[] = [];
  let scheduled = false;
  const nextTurn = () => {
    if (scheduled || !turns.length) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      turns.shift()!();
      nextTurn();
    });
  };
  const current = (who: string) => {
    const t = clock.now();
    const s = left.get(who);
    const ms = s ? Math.min(limits.burstMs, s.ms + ((t - s.at) / 1000) * limits.msPerSecond) : limits.burstMs;
    return { ms, at: t };
  };
  const charge = (who: string, ms: number) => {
    const c = current(who);
    left.delete(who);
    left.set(who, { ms: c.ms - ms, at: c.at });
    if (left.size > REMEMBERED) left.delete(left.keys().next().value!);
  };
  const admit = (who: string) => {
    const before = current(who);
    if (before.ms <= 0)
      throw tooMany("this caller's search time is spent", Math.max(1, Math.ceil(-before.ms / limits.msPerSecond)));
    const running = inFlight.get(who) ?? 0;
    if (running >= limits.inFlight)
      throw tooMany(`this caller has ${running} searches under way already (at most ${limits.inFlight})`, 1);
    inFlight.set(who, running + 1);
  };
  const done = (who: string) => {
    const n = (inFlight.get(who) ?? 1) - 1;
    if (n > 0) inFlight.set(who, n);
    else inFlight.delete(who);
  };
  return {
    hold(who) {
      admit(who);
      let held = true;
      return () => {
        if (held) done(who);
        held = false;
      };
    },
    spend(who, read) {
      admit(who);
      return new Promise((resolve, reject) => {
        turns.push(() => {
          const start = clock.elapsed();
          try {
            resolve(read());
          } catch (err) {
            reject(err);
          } finally {
            charge(who, clock.elapsed() - start);
            done(who);
          }
        });
        nextTurn();
      });
    },
  };
}
