import { thousands } from '../text/thousands.js';
import { verifyConsistency } from './merkle.js';
import type { SignedTree, TreeCheckpoint } from './tree-checkpoint.js';

/**
 * How a newly seen signed checkpoint stands to one seen before (a checkpoint the CLI remembers, a
 * witness's last cosigned one, a kept `--since` file): both are the appliance's signed word, so
 * when no consistency proof joins them the appliance has signed two histories: a fork.
 */
export type Compared =
  /** the same tree */
  | { kind: 'same' }
  /** the newer one extends the earlier: the log only grew */
  | { kind: 'extends' }
  /** the newly seen one is smaller, and a prefix of the earlier: an older checkpoint (the head went back) */
  | { kind: 'older' }
  | { kind: 'fork'; why: string };

const n = thousands;

/** The consistency proof needed between the two, smaller size first, or null when none is (same size). */
export function proofNeeded(earlier: SignedTree, now: SignedTree): { from: number; to: number } | null {
  if (earlier.size === now.size) return null;
  return earlier.size < now.size ? { from: earlier.size, to: now.size } : { from: now.size, to: earlier.size };
}

/** Compares the trees, with the consistency proof the appliance served for proofNeeded (null when it served none). */
export function compareTrees(earlier: SignedTree, now: SignedTree, proof: Buffer[] | null): Compared {
  if (earlier.origin !== now.origin)
    return {
      kind: 'fork',
      why: `the same key signed another log (${now.origin}) than the one seen before (${earlier.origin})`,
    };
  if (earlier.size === now.size)
    return earlier.root.equals(now.root)
      ? { kind: 'same' }
      : { kind: 'fork', why: `two signed checkpoints of tree size ${n(now.size)} have different roots` };
  const [small, big] = earlier.size < now.size ? [earlier, now] : [now, earlier];
  if (proof && verifyConsistency(small.size, big.size, small.root, big.root, proof))
    return earlier.size < now.size ? { kind: 'extends' } : { kind: 'older' };
  return {
    kind: 'fork',
    why:
      `the tree of size ${n(small.size)} is not proven a prefix of the tree of size ${n(big.size)}` +
      (proof
        ? ' (the consistency proof the appliance served does not verify)'
        : ' (the appliance served no consistency proof)'),
  };
}

const FORK_EVIDENCE_FORMAT = 'appliance-admin/fork-evidence/v1';

/**
 * What is written when a fork is found: both checkpoints as signed (each verifies on its own with
 * the appliance's key; together they show two histories), why, and the proof that failed.
 */
export function forkEvidence(
  earlier: TreeCheckpoint,
  now: TreeCheckpoint,
  why: string,
  o: { foundAt: string; source: string; proof?: { from: number; to: number; path: string[] } | null },
): string {
  return `${JSON.stringify(
    {
      format: FORK_EVIDENCE_FORMAT,
      found_at: o.foundAt,
      why,
      seen_before: { source: o.source, checkpoint: earlier },
      seen_now: { checkpoint: now },
      consistency_proof: o.proof ?? null,
    },
    null,
    2,
  )}\n`;
}
