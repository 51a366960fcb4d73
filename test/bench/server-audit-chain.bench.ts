import { rmSync } from 'node:fs';
import { startTestServer } from '../helpers/server.js';
import { writePreChainForBenchmark } from '../../src/server/audit.js';
import { loadAverage, percentile } from './lib/stats.js';
import { mutationsSideBySide, timesText as fmt } from './lib/mutation-ab.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 28, point 8 (first figure): what the audit hash chain adds to a mutation. Two servers in
 * this process, each on loopback with its own database; one writes its audit entries chained (the
 * real path: head read, JCS + SHA-256, checkpoints every 1,000 entries), the other as before the
 * chain (writePreChainForBenchmark). The same mutation (PUT /channels, one channel toggled) is
 * sent to each in turn, one request at a time, so that both see the same machine load.
 */
export const name = 'server-audit-chain';

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const rounds = ctx.quick ? 400 : 5000;
  const chained = await startTestServer();
  const plain = await startTestServer();
  writePreChainForBenchmark(plain.server.db);
  try {
    const { a: withChain, b: without } = await mutationsSideBySide(chained, plain, rounds);
    const entries = chained.server.db.prepare('SELECT count(*) FROM audit WHERE hash IS NOT NULL').pluck().get();
    ctx.log(`chained: ${fmt(withChain)}; pre-chain: ${fmt(without)}; load average ${loadAverage()}`);
    return [
      {
        label: `mutation (PUT /channels) p99 over HTTP with the audit chain, ${rounds.toLocaleString('en-US')} requests`,
        value: percentile(withChain, 99),
        unit: 'ms',
        baseline: {
          label: 'the same mutation, audit entries written as before the chain',
          value: percentile(without, 99),
        },
        target: { maxRatio: 1.1 },
        note: `chained ${fmt(withChain)} (${String(entries)} chained entries); pre-chain ${fmt(without)}`,
      },
    ];
  } finally {
    for (const s of [chained, plain]) {
      await s.close();
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  }
}
