import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServerConfig } from '../../src/server/config.js';
import { loadDemoConfig } from '../../src/server/demo/config.js';
import { catchUpDemo, seedDemo } from '../../src/server/demo/seed.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { startTestServer } from '../helpers/server.js';

/**
 * Issue 39 §8: a fresh demo's first overview shows quota rejections and failures whatever the
 * clock says. The clock (Date only: timers run) is set to a Sunday's midnight, where the
 * office-hours curve alone leaves the last hour without a rejected call or a failed step; the demo
 * is seeded there, then brought up to the first minute of a night hour as a demo started from the
 * prebuilt database is. The server and the dashboard run in this process, on that clock.
 */
const MIDNIGHT = Date.parse('2026-11-22T00:00:00.000Z'); // a Sunday
const HOURS_FIRST_MINUTE = Date.parse('2026-11-22T03:00:20.000Z');
const HOUR = 3_600_000;
/** 30 days of history: a few seconds, many more on a busy two-core host */
const SEEDING_MS = 120_000;

let config: ServerConfig;
const suite = setupScreenSuite({
  start: () => startTestServer({ config: (root) => (config = loadDemoConfig(`${root}/demo`)) }),
});

beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterAll(() => {
  vi.useRealTimers();
});

/** the last hour's failed steps and rejections by cause (all keys), as the API answers them at the clock's now */
async function lastHour(now: number) {
  const range = `start_time=${new Date(now - HOUR).toISOString()}&end_time=${new Date(now).toISOString()}`;
  const failed = await suite.server.call('GET', `/agent/journal?status=failed&limit=50&${range}`);
  const usage = await suite.server.call('GET', `/gateway/usage?${range}`);
  expect(failed.status).toBe(200);
  expect(usage.status).toBe(200);
  const causes: Record<string, number> = {};
  for (const b of usage.json.data as { rejected_by?: Record<string, number> }[])
    for (const [cause, n] of Object.entries(b.rejected_by ?? {})) causes[cause] = (causes[cause] ?? 0) + n;
  return { failedSteps: (failed.json.data as unknown[]).length, causes };
}

/** The overview as drawn: a key's quota rejections over the last hour, and agents' failed steps. */
async function expectTroubleOnTheBoard() {
  const o = suite.render({ columns: 200, rows: 40 });
  await o.waitForText(/WARN\s+Key \S+\s+\d+ calls? rejected in the last hour: .*(requests|tokens)\/minute quota/);
  await o.waitForText(/WARN\s+Agent \S+\s+\d+ failed steps?: top error/);
  await o.unmount();
}

describe("a fresh demo's overview, whatever the clock", () => {
  it(
    'at midnight: quota rejections and failed steps in the last hour, on the first board',
    async () => {
      vi.setSystemTime(MIDNIGHT);
      expect(seedDemo(suite.db, config)).toBeDefined();
      const seen = await lastHour(MIDNIGHT);
      expect(seen.failedSteps).toBeGreaterThanOrEqual(2);
      expect((seen.causes.requests_per_minute ?? 0) + (seen.causes.tokens_per_minute ?? 0)).toBeGreaterThan(0);
      await expectTroubleOnTheBoard();
    },
    SEEDING_MS,
  );

  it(
    "in an hour's first minute, brought up to date from an earlier seeding (the prebuilt demo)",
    async () => {
      vi.setSystemTime(HOURS_FIRST_MINUTE);
      const caughtUp = catchUpDemo(suite.db, config)!;
      expect(caughtUp).toMatchObject({ from: MIDNIGHT, until: HOURS_FIRST_MINUTE });
      // the midnight seeding's own are more than an hour old now
      const seen = await lastHour(HOURS_FIRST_MINUTE);
      expect(seen.failedSteps).toBeGreaterThanOrEqual(2);
      expect((seen.causes.requests_per_minute ?? 0) + (seen.causes.tokens_per_minute ?? 0)).toBeGreaterThan(0);
      await expectTroubleOnTheBoard();
      // a second catch-up within the minute writes nothing
      expect(catchUpDemo(suite.db, config)).toBeUndefined();
    },
    SEEDING_MS,
  );
});
