import type { Statement } from 'better-sqlite3';
import type { AuditConsistencyProof, AuditInclusionProof } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { badRequest, notFound } from '../errors.js';
import { consistencyProof, inclusionProof } from '../../audit-chain/merkle.js';
import { leafIndexOf, storedSubtrees, treeHead } from './tree.js';

/**
 * The proof routes (docs/audit-chain.md, "Proofs"): RFC 9162 paths made from the stored subtrees
 * (tree.ts), a few dozen row reads whatever the trail's length. The tree only grows and a stored
 * subtree never changes, so reads between a writer's appends still give a proof that holds.
 */

interface Reads {
  entryHash: Statement;
  newestSignedSize: Statement;
}
const reads = new WeakMap<Db, Reads>();
function r(db: Db): Reads {
  let s = reads.get(db);
  if (!s)
    reads.set(
      db,
      (s = {
        entryHash: db.prepare('SELECT hash FROM audit WHERE seq = ?').pluck(),
        newestSignedSize: db
          .prepare(
            'SELECT tree_size FROM audit_checkpoints WHERE tree_size IS NOT NULL ORDER BY seq DESC, id DESC LIMIT 1',
          )
          .pluck(),
      }),
    );
  return s;
}

const hex = (b: Buffer) => b.toString('hex');
const badSize = (name: string, reason: string) => badRequest(`${name} ${reason}`, [{ name, reason }]);

/** Entry `seq`'s audit path in the tree of `tree_size` (default: the newest checkpoint's tree). */
export function inclusionProofOf(db: Db, q: { seq: number; tree_size?: number }): AuditInclusionProof {
  const entryHash = r(db).entryHash.get(q.seq) as string | null | undefined;
  if (entryHash === undefined) throw notFound(`there is no audit entry #${q.seq}`);
  const index = leafIndexOf(db, q.seq);
  if (index === null || entryHash === null) throw notFound(`audit entry #${q.seq} is not in the tree`);
  const size = q.tree_size ?? (r(db).newestSignedSize.get() as number | undefined);
  if (size === undefined) throw badSize('tree_size', 'is required: no checkpoint signs a tree yet');
  const treeSize = treeHead(db).size;
  if (size > treeSize) throw badSize('tree_size', `is larger than the tree (${treeSize} entries)`);
  if (size <= index)
    throw badSize('tree_size', `must be above the entry's leaf index ${index} (the tree of ${size} does not hold it)`);
  return {
    seq: q.seq,
    leaf_index: index,
    tree_size: size,
    entry_hash: entryHash,
    path: inclusionProof(storedSubtrees(db), index, size).map(hex),
  };
}

/** The proof that the tree of `from` entries is a prefix of the tree of `to`. */
export function consistencyProofOf(db: Db, q: { from: number; to: number }): AuditConsistencyProof {
  const treeSize = treeHead(db).size;
  if (q.to > treeSize) throw badSize('to', `is larger than the tree (${treeSize} entries)`);
  return { from: q.from, to: q.to, path: consistencyProof(storedSubtrees(db), q.from, q.to).map(hex) };
}
