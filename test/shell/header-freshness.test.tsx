import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';

const suite = setupScreenSuite();

const header = (f: string) => f.split('\n').slice(0, 2).join('\n');
/** Until `n` more refreshes have been answered: the route asked at every refresh, asked `n` more times. */
async function refreshes(d: DashboardHarness, n: number) {
  const asked = new Map<string, number>();
  const off = d.deps.client.observe((e) => asked.set(e.route, (asked.get(e.route) ?? 0) + 1));
  try {
    await d.waitFor(() => Math.max(0, ...asked.values()) >= n, `${n} refreshes`, 15_000);
  } finally {
    off();
  }
}

/**
 * Watches an idle dashboard for seven refreshes (3.5 s): its polls are answered 304, the header is never late,
 * and no frame is drawn for a clock whose words did not change.
 */
async function watchIdle(d: DashboardHarness) {
  await d.waitFor((f) => /updated (?:just now|\d+ s ago)/.test(header(f)), 'data');
  await refreshes(d, 3); // the first rounds are in
  // and every source the screen reads (the overview's slower ones come in after its first frame)
  await d.waitFor((f) => !/not read|loading…/.test(f), 'every source read');
  const dataBefore = Object.fromEntries(
    Object.entries(d.deps.resources.getState().entries).map(([k, e]) => [k, e.data]),
  );
  const lastFrame = d.frame();
  d.forgetFrames();
  const framesBefore = d.frameCount();
  await refreshes(d, 7);
  const after = d.deps.resources.getState().entries;
  // the polls were answered 304: the data is the same object, its confirmation time moved
  const confirmed = Object.entries(after).filter(
    ([k, e]) => e.data === dataBefore[k] && e.fetchedAt! > Date.now() - 1500,
  );
  expect(confirmed.length).toBeGreaterThan(0);
  // nothing changed: the header says so in the same words, and its clock drew no frame for it (at most one,
  // for the screen's own relative times, every 10 s)
  expect(header(d.frame() || lastFrame)).toContain('every 500 ms · updated just now');
  expect(d.frameCount() - framesBefore).toBeLessThanOrEqual(1);
  expect(d.allFrames()).not.toContain('(late)');
  expect(header(d.frame() || lastFrame)).not.toMatch(/late|STALE/);
}

describe("the header's freshness", () => {
  // Generous: late means older than two intervals (1 s); a 304 every 500 ms keeps it well under.
  // Both screens are watched side by side (their own dashboards): the watch is seconds of waiting.
  it.concurrent.each(['overview', 'audit'])(
    'an idle %s screen whose polls are all 304 is never late',
    async (screen) => {
      const d = renderDashboard({ server: suite.server, screen, refreshMs: 500 });
      try {
        await watchIdle(d);
      } finally {
        await d.unmount();
      }
    },
  );

  it('a stopped server makes the same screen stale', async () => {
    const own = await startTestServer();
    const d = suite.render({ server: own, screen: 'audit', refreshMs: 500 });
    await d.waitFor((f) => /updated (?:just now|\d+ s ago)/.test(header(f)), 'data');
    await own.close();
    await d.waitFor((f) => /STALE|\(late\)/.test(header(f)), 'stale or late', 8000);
  });

  it('an answer that does not come counts its age in seconds from one interval after the last, then is late', async () => {
    const d = suite.render({ screen: 'audit', refreshMs: 2000 });
    await d.waitFor((f) => /every 2 s · updated just now/.test(header(f)), 'data');
    d.deps.poller.stop();
    // nothing asked any more: past the interval and a second for the answer, the age is counted…
    await d.waitFor((f) => /every 2 s · updated [34] s ago$/m.test(header(f)), 'an age in seconds', 6000);
    // …and past two intervals it is late, drawn by the clock alone (no key, no answer)
    await d.waitFor((f) => /every 2 s · ▲ updated \d+ s ago \(late\)/.test(header(f)), 'late', 6000);
  });
});
