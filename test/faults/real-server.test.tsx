import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { issueToken, start, type ChildServer } from '../helpers/child-server.js';
import { renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';

/**
 * Issue 5, point 1 (real half): the dashboard against the real server process, which the test
 * keeps down at start, kills, stops (SIGSTOP: a stall) and restarts on the same port. The
 * phases run in order on one dashboard, as an operator would live through them.
 */
const REFRESH_MS = 300;
const TIMEOUT_MS = 400;

let server: ChildServer;
let token: string;
let d: DashboardHarness;

beforeAll(async () => {
  const root = tempDir('aa-faults');
  const dataDir = join(root, 'data');
  token = await issueToken(dataDir, 'it_admin', 'fault-admin');
  server = await start(dataDir, { config: fixtureConfig(root) });
  await server.kill('SIGKILL'); // its port is kept for the restarts
}, 60_000);
afterAll(async () => {
  await d?.unmount();
  try {
    process.kill(server.pid, 'SIGCONT');
  } catch {
    /* already gone */
  }
  await server?.stop();
});

const header = (f: string) => f.split('\n').slice(0, 2).join('\n');
const oneLine = (f: string) => f.replace(/\s+/g, ' ');

/** After the server is back: recovered at the first poll, i.e. after the countdown plus one interval. */
async function recovers(back: number) {
  const { retryAt } = d.deps.resources.getState().connection;
  // slack for a loaded machine: the poll, the server's answer and a render
  const bound = Math.max(0, (retryAt ?? back) - back) + REFRESH_MS + 3 * TIMEOUT_MS + 1500;
  await d.waitFor(
    (f) =>
      /● connected/.test(header(f)) &&
      /updated (?:just now|\d+ s ago)/.test(header(f)) &&
      !f.includes('✕') &&
      f.includes('Web chat'),
    'recovery',
    bound + 3000,
  );
  expect(Date.now() - back, 'recovered within one refresh of the server being back').toBeLessThanOrEqual(bound);
  expect(d.crashed()).toBeNull();
}

async function stillResponds() {
  await d.press('tab');
  await d.waitForText('[keys]');
  await d.press('shift-tab');
  await d.waitForText('[channels]');
}

describe('the dashboard against a real server that goes away', () => {
  it('down at start: says it cannot reach the appliance, keeps running, connects when it starts', async () => {
    d = renderDashboard({ url: server.url, token, screen: 'channels', refreshMs: REFRESH_MS, timeoutMs: TIMEOUT_MS });
    const f = await d.waitFor(
      (x) => oneLine(x).includes('✕ cannot connect: cannot reach the appliance (connection refused) (ECONNREFUSED)'),
      'refused',
    );
    expect(header(f)).toMatch(/✕ DISCONNECTED · retry in \d+ s/);
    expect(f).toContain('No data: the request failed (see above). r retries.');
    await stillResponds();
    server = await server.restart();
    await recovers(Date.now());
    expect(header(d.frame())).toContain('fault-admin (it_admin)');
  });

  it('killed mid-session (SIGKILL): the last data stays, STALE, a countdown; back after a restart', async () => {
    await server.kill('SIGKILL');
    const f = await d.waitFor((x) => /✕ DISCONNECTED · retry in \d+ s/.test(header(x)), 'disconnected');
    expect(oneLine(f)).toMatch(
      /✕ connection lost: (cannot reach the appliance|the connection to the appliance was closed).*showing the last data/,
    );
    expect(f).toContain('Web chat');
    expect(header(f)).toContain('✕ STALE');
    await stillResponds();
    server = await server.restart();
    await recovers(Date.now());
  });

  it('stopped (SIGTERM) and restarted: the same', async () => {
    await server.stop();
    await d.waitFor((x) => /✕ DISCONNECTED/.test(header(x)) && x.includes('Web chat'), 'disconnected, data kept');
    server = await server.restart();
    await recovers(Date.now());
  });

  it('stalled (SIGSTOP): times out in plain words with the data kept; recovers after SIGCONT', async () => {
    process.kill(server.pid, 'SIGSTOP');
    try {
      const f = await d.waitFor(
        (x) => oneLine(x).includes('✕ connection lost: the appliance did not answer in time'),
        'a timeout',
      );
      expect(f).toContain('Web chat');
      expect(header(f)).toContain('✕ STALE');
      await stillResponds();
      // a stall a further timeout long, then the server wakes up
      const failures = d.deps.resources.getState().connection.failures;
      await d.waitFor(
        () => d.deps.resources.getState().connection.failures > failures,
        'one more timed-out poll',
        15_000,
      );
      expect(d.crashed()).toBeNull();
    } finally {
      process.kill(server.pid, 'SIGCONT');
    }
    await recovers(Date.now());
  });
});
