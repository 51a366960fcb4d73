import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { issueToken, startServer } from './lib/cli-server.js';
import { latencySummary, pollAdmin } from './lib/admin-poll.js';
import { Mishaps, slowClients } from './lib/slow-clients.js';
import { loadAverage, median, nowMs, percentile } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 26, point 1: the built server (`serve`, default limits) while 200 slow clients trickle
 * their headers a byte a second, each cut off by the header timeout (408) and connecting again,
 * and one client GETs /connectors every 10 ms. The baseline is the same GETs with no slow client,
 * in the same run.
 */
export const name = 'server-slow-clients';

const SLOW = 200;
const TRICKLE_MS = 1000;
const GET_EVERY_MS = 10;

export async function run(ctx: BenchContext): Promise<Figure[]> {
  // long enough for each slow client to be cut off (10 s header timeout) and come back
  const durationMs = ctx.quick ? 15_000 : 30_000;
  const dataDir = join(ctx.outDir, `work-${name}`);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const token = issueToken(dataDir, 'it_admin', 'bench-slow');
  const server = await startServer(dataDir);
  try {
    await pollAdmin(server.url, token, 2_000, GET_EVERY_MS); // warm-up: a fresh server compiles its routes
    const idle = await pollAdmin(server.url, token, durationMs, GET_EVERY_MS);
    ctx.log(`no slow clients: ${latencySummary(idle)}; load average ${loadAverage()}`);
    const mishaps = new Mishaps();
    const [busy, cutOffMs] = await Promise.all([
      pollAdmin(server.url, token, durationMs, GET_EVERY_MS),
      slowClients(Number(new URL(server.url).port), SLOW, TRICKLE_MS, nowMs() + durationMs, mishaps),
    ]);
    ctx.log(`${SLOW} slow clients: ${latencySummary(busy)}; load average ${loadAverage()}`);
    return [
      {
        label: `admin GET p99 while ${SLOW} slow clients trickle their headers, one GET every ${GET_EVERY_MS} ms, ${durationMs / 1000} s`,
        value: percentile(busy, 99),
        unit: 'ms',
        baseline: { label: 'the same GETs, no slow client', value: percentile(idle, 99) },
        target: { max: 50 },
        note: `${latencySummary(busy)}; baseline ${latencySummary(idle)}`,
      },
      {
        label: 'slow clients cut off with 408 (default 10 s header timeout)',
        value: cutOffMs.length,
        unit: 'count',
        target: { min: SLOW },
        note: `after p50 ${median(cutOffMs).toFixed(0)} ms, max ${Math.max(...cutOffMs).toFixed(0)} ms from connecting`,
      },
      {
        label: 'slow clients closed without a 408',
        value: mishaps.count,
        unit: 'count',
        target: { max: 0 },
        note: mishaps.first.slice(0, 3).join('; '),
      },
    ];
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
