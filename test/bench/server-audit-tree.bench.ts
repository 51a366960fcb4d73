import { rmSync } from 'node:fs';
import { startTestServer } from '../helpers/server.js';
import { writeWithoutTreeForBenchmark } from '../../src/server/audit-chain/tree.js';
import { copyAuditDb, ensureAuditDb } from './lib/audit-db.js';
import { loadAverage, percentile } from './lib/stats.js';
import { mutationsSideBySide, timesText as fmt } from './lib/mutation-ab.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 40 §7: what the transparency-log tree adds to a mutation. Two servers in this process, each
 * on loopback with its own copy of the same 1,000,000-entry trail (lib/audit-db.ts, tree included);
 * one keeps the tree as it writes (the real path: the leaf and every subtree it closes, in the
 * entry's transaction, and each checkpoint's root and signed note), the other leaves it alone
 * (writeWithoutTreeForBenchmark: entries chained and checkpoints signed as before the tree). The same
 * mutation (PUT /channels, one channel toggled) is sent to each in turn, one request at a time, so
 * that both see the same machine load.
 */
export const name = 'server-audit-tree';

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const rows = ctx.quick ? 100_000 : 1_000_000;
  const rounds = ctx.quick ? 400 : 5000;
  const src = ensureAuditDb(ctx.outDir, rows, ctx.log);
  const treed = await startTestServer({ dataDir: copyAuditDb(src, ctx.outDir, 'tree-kept') });
  const plain = await startTestServer({ dataDir: copyAuditDb(src, ctx.outDir, 'tree-not-kept') });
  writeWithoutTreeForBenchmark(plain.server.db);
  try {
    const { a: withTree, b: without } = await mutationsSideBySide(treed, plain, rounds);
    const db = treed.server.db;
    const leaves = db.prepare('SELECT count(*) FROM audit_tree WHERE level = 0').pluck().get() as number;
    const entries = db.prepare('SELECT count(*) FROM audit').pluck().get() as number;
    if (leaves !== entries) throw new Error(`the tree holds ${leaves} leaves for ${entries} entries`);
    ctx.log(`tree: ${fmt(withTree)}; no tree: ${fmt(without)}; load average ${loadAverage()}`);
    return [
      {
        label: `mutation (PUT /channels) p99 over HTTP with the audit tree, ${rows.toLocaleString('en-US')}-entry trail, ${rounds.toLocaleString('en-US')} requests`,
        value: percentile(withTree, 99),
        unit: 'ms',
        baseline: {
          label: 'the same mutation on the same trail, the tree not kept (chain and checkpoints as before it)',
          value: percentile(without, 99),
        },
        target: { maxRatio: 1.1 },
        note: `tree ${fmt(withTree)} (${entries.toLocaleString('en-US')} leaves); no tree ${fmt(without)}`,
      },
    ];
  } finally {
    for (const s of [treed, plain]) {
      await s.close();
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  }
}
