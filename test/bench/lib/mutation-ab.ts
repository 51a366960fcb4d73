import type { TestServer } from '../../helpers/server.js';
import { median, nowMs, percentile } from './stats.js';

/**
 * A mutation's cost on two servers in one process, side by side (server-audit-chain, -tree): the
 * same PUT /channels (one channel toggled) sent to each in turn, one request at a time, so that both
 * see the same machine load; a warm-up first, and which server goes first alternates.
 */
export async function mutationsSideBySide(
  a: TestServer,
  b: TestServer,
  rounds: number,
): Promise<{ a: number[]; b: number[] }> {
  const times = { a: [] as number[], b: [] as number[] };
  // warm-up: routes compiled, statements prepared, both databases' hot pages cached
  for (let i = 0; i < 200; i++) {
    await mutate(a, i % 2 === 0);
    await mutate(b, i % 2 === 0);
  }
  for (let i = 0; i < rounds; i++) {
    const enabled = i % 2 === 0;
    // which server goes first alternates, so neither always follows the other's write
    if (i % 4 < 2) {
      times.a.push(await mutate(a, enabled));
      times.b.push(await mutate(b, enabled));
    } else {
      times.b.push(await mutate(b, enabled));
      times.a.push(await mutate(a, enabled));
    }
  }
  return times;
}

/** p50, p99 and count of a run's times, for the log. */
export const timesText = (ms: number[]) =>
  `p50 ${median(ms).toFixed(2)} ms, p99 ${percentile(ms, 99).toFixed(2)} ms, n ${ms.length.toLocaleString('en-US')}`;

async function mutate(s: TestServer, enabled: boolean): Promise<number> {
  const t0 = nowMs();
  const res = await s.call('PUT', '/channels', { body: { channels: [{ id: 'chan_web', enabled }] } });
  const ms = nowMs() - t0;
  if (res.status !== 200) throw new Error(`PUT /channels answered ${res.status}`);
  return ms;
}
