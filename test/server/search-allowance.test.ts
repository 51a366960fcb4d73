import { describe, expect, it } from 'vitest';
import { searchAllowance } from '../../src/server/governance/search-allowance.js';
import { ApiError } from '../../src/server/errors.js';

/** The search allowance on its own, with a clock the test moves (issue 37 §1: fair, a few in flight per caller). */
function clock() {
  let now = 0;
  let elapsed = 0;
  return {
    clock: { now: () => now, elapsed: () => elapsed },
    /** a search that takes `ms` of the thread */
    takes: (ms: number) => () => {
      elapsed += ms;
      return ms;
    },
    advance: (ms: number) => (now += ms),
  };
}

const refusal = (f: () => unknown): ApiError => {
  try {
    f();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('not refused');
};

describe('search allowance', () => {
  it('lets a caller have a few searches under way, and refuses the next with 429 and Retry-After', async () => {
    const c = clock();
    const a = searchAllowance(c.clock, { msPerSecond: 100, burstMs: 500, inFlight: 4 });
    const queued = [1, 2, 3, 4].map(() => a.spend('ana', c.takes(1)));
    const err = refusal(() => a.spend('ana', c.takes(1)));
    expect(err.status).toBe(429);
    expect(err.options.headers).toEqual({ 'retry-after': '1' });
    expect(err.detail).toMatch(/4 searches under way/);
    // another caller is not held to ana's count
    await expect(a.spend('ben', c.takes(1))).resolves.toBe(1);
    await Promise.all(queued);
    await expect(a.spend('ana', c.takes(1))).resolves.toBe(1);
  });

  it('charges the time a search took and refuses a caller whose time is spent until it is earned back', async () => {
    const c = clock();
    const a = searchAllowance(c.clock, { msPerSecond: 100, burstMs: 500, inFlight: 4 });
    await a.spend('ana', c.takes(800)); // 300 ms in debt
    const err = refusal(() => a.spend('ana', c.takes(1)));
    expect(err.options.headers).toEqual({ 'retry-after': '3' });
    c.advance(2_900);
    expect(refusal(() => a.spend('ana', c.takes(1))).status).toBe(429);
    c.advance(200);
    await expect(a.spend('ana', c.takes(1))).resolves.toBe(1);
  });

  it('runs queued searches one per turn of the event loop, so that other work comes between them', async () => {
    const c = clock();
    const a = searchAllowance(c.clock);
    const order: string[] = [];
    const searches = ['a', 'b', 'c'].map((who) =>
      a.spend(who, () => {
        order.push(`search ${who}`);
        // work that arrives while this search runs (a request): it must not wait for the other searches
        setImmediate(() => order.push(`other after ${who}`));
      }),
    );
    await Promise.all(searches);
    await new Promise((r) => setImmediate(r));
    expect(order.slice(0, 4)).toEqual(['search a', 'other after a', 'search b', 'other after b']);
  });
});
