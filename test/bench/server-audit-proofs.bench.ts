import { rmSync } from 'node:fs';
import { createPublicKey } from 'node:crypto';
import { startTestServer } from '../helpers/server.js';
import { leafHash, verifyConsistency, verifyInclusion } from '../../src/audit-chain/merkle.js';
import { noteSignedBy, parseCheckpointText, parseNote } from '../../src/audit-chain/note.js';
import { openDatabase } from '../../src/server/db/open.js';
import { catchUpTree, treeRoot } from '../../src/server/audit-chain/tree.js';
import { inclusionProofOf } from '../../src/server/audit-chain/proofs.js';
import { createRng } from '../../src/server/demo/prng.js';
import { copyAuditDb, ensureAuditDb } from './lib/audit-db.js';
import { loadAverage, median, nowMs, percentile, rss, MB } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 40 §7: proofs at 1,000,000 entries. The server on loopback over a copy of the benchmarks'
 * 1,000,000-entry trail (lib/audit-db.ts, written by the bulk path, which keeps the tree); its first
 * start signs the head with the tree's note. Inclusion proofs of random entries in the newest signed
 * tree and consistency proofs between random sizes, one request at a time, each checked against the
 * signed root now and then (a fast wrong answer is no figure); the plain figure is the cheapest
 * signed read over the same HTTP path, the newest checkpoint. Then the tree's migration: the same
 * trail's tree built again from its entries, as migration 11 builds it for an existing database.
 */
export const name = 'server-audit-proofs';

const fmt = (ms: number[]) =>
  `p50 ${median(ms).toFixed(2)} ms, p99 ${percentile(ms, 99).toFixed(2)} ms, n ${ms.length.toLocaleString('en-US')}`;
const hex = (h: string) => Buffer.from(h, 'hex');

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const rows = ctx.quick ? 100_000 : 1_000_000;
  const n = ctx.quick ? 500 : 3000;
  const src = ensureAuditDb(ctx.outDir, rows, ctx.log);
  const dataDir = copyAuditDb(src, ctx.outDir, 'audit-proofs');
  const figures: Figure[] = [];
  try {
    const s = await startTestServer({ dataDir });
    let size = 0;
    let root: Buffer = Buffer.alloc(0);
    try {
      const listed = (await s.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' })).json;
      const c = listed.data[0];
      const note = parseNote(c.note);
      if (typeof note === 'string') throw new Error(`the checkpoint's note: ${note}`);
      if (noteSignedBy(note, c.origin, createPublicKey(listed.public_keys[0].public_key_pem)) !== 'valid')
        throw new Error('the checkpoint note does not verify');
      const body = parseCheckpointText(note.text);
      if (typeof body === 'string') throw new Error(body);
      ({ size, root } = body);
      if (size < rows) throw new Error(`the signed tree has ${size} leaves, not ${rows}`);
      const rng = createRng(40);
      const inclusion: number[] = [];
      const consistency: number[] = [];
      const plain: number[] = [];
      const time = async (path: string, into: number[] | null, check?: (json: any) => boolean) => {
        const t0 = nowMs();
        const r = await s.call('GET', path, { role: 'auditor' });
        const ms = nowMs() - t0;
        if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}`);
        if (check && !check(r.json)) throw new Error(`GET ${path}: the proof does not verify`);
        into?.push(ms);
      };
      for (let i = 0; i < 200 + n; i++) {
        const warm = i < 200;
        const checking = i % 50 === 0;
        const seq = rng.int(1, size);
        await time(
          `/audit/proofs/inclusion?seq=${seq}`,
          warm ? null : inclusion,
          checking
            ? (p) => verifyInclusion(leafHash(p.entry_hash), p.leaf_index, size, p.path.map(hex), root)
            : undefined,
        );
        const from = rng.int(1, size);
        await time(
          `/audit/proofs/consistency?from=${from}&to=${size}`,
          warm ? null : consistency,
          checking
            ? (p) => verifyConsistency(from, size, treeRoot(s.server.db, from), root, p.path.map(hex))
            : undefined,
        );
        await time('/audit/checkpoints?limit=1', warm ? null : plain);
      }
      // the same inclusion proof without HTTP: what the route adds to the tree's reads
      const inProcess: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = nowMs();
        inclusionProofOf(s.server.db, { seq: rng.int(1, size) });
        inProcess.push(nowMs() - t0);
      }
      ctx.log(
        `inclusion ${fmt(inclusion)}; consistency ${fmt(consistency)}; newest checkpoint ${fmt(plain)}; in process ${fmt(inProcess)}; load average ${loadAverage()}`,
      );
      const rowsText = rows.toLocaleString('en-US');
      const baseline = {
        label: 'the newest checkpoint over the same HTTP path (GET /audit/checkpoints?limit=1)',
        value: percentile(plain, 99),
      };
      figures.push(
        {
          label: `inclusion proof p99 over HTTP, random entry of ${rowsText}, newest signed tree`,
          value: percentile(inclusion, 99),
          unit: 'ms',
          baseline,
          target: { max: 5 },
          note: `${fmt(inclusion)}; in process (no HTTP) ${fmt(inProcess)}`,
        },
        {
          label: `consistency proof p99 over HTTP, random size to ${rowsText}`,
          value: percentile(consistency, 99),
          unit: 'ms',
          baseline,
          target: { max: 5 },
          note: fmt(consistency),
        },
      );
    } finally {
      await s.close();
    }

    // migration 11's work on an existing trail: its tree built from its entries, in seq order
    const db = openDatabase(dataDir);
    try {
      const head = db.prepare('SELECT max(seq) FROM audit').pluck().get() as number;
      db.exec('DELETE FROM audit_tree; DELETE FROM audit_tree_runs;');
      const before = rss().total;
      const t0 = nowMs();
      db.transaction(() => catchUpTree(db, head))();
      const seconds = (nowMs() - t0) / 1000;
      const grew = (rss().total - before) / MB;
      if (!treeRoot(db, size).equals(root)) throw new Error('the rebuilt tree does not give the signed root');
      figures.push({
        label: `the tree of an existing ${head.toLocaleString('en-US')}-entry trail built (migration 11)`,
        value: seconds,
        unit: 's',
        note: `resident memory grew ${grew.toFixed(0)} MB while it ran; root equals the signed one`,
      });
    } finally {
      db.close();
    }
    return figures;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
