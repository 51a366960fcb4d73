import { thousands } from '../text/thousands.js';
import { HEX64 } from './checkpoint.js';
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

/**
 * The appliance's consistency proof between two tree sizes (GET /audit/proofs/consistency): its
 * hashes, and the path as served (for evidence); null when it refused to give one (a size beyond its
 * tree: a fork or a cut). Throws when it could not be asked: the CLI's and the dashboard's client.
 */
export type ConsistencySource = (from: number, to: number) => Promise<{ path: Buffer[]; served: string[] } | null>;

/** A consistency proof answer as served, shape-checked (never more than 128 hashes), or null when it is not one. */
export function consistencyOfAnswer(v: unknown, from: number, to: number): { path: Buffer[]; served: string[] } | null {
  const a = (v ?? {}) as Record<string, unknown>;
  const path = a.path;
  if (
    a.from !== from ||
    a.to !== to ||
    !Array.isArray(path) ||
    path.length > 128 ||
    !path.every((h) => typeof h === 'string' && HEX64.test(h))
  )
    return null;
  const served = path as string[];
  return { path: served.map((h) => Buffer.from(h, 'hex')), served };
}

/** How a newer checkpoint stands to one seen before, with the proof asked for it (null: none needed, or refused). */
export interface Step {
  compared: Compared;
  need: { from: number; to: number } | null;
  proof: { path: Buffer[]; served: string[] } | null;
}

/**
 * Asks the appliance for the consistency proof between a checkpoint seen before and the one seen now,
 * and compares the two trees with it: the one way every reader moves from a checkpoint it kept to a
 * newer one without reading the entries between (the CLI's remembered checkpoint and `--since`, the
 * witness, the dashboard's kept checkpoint). Throws when the proof could not be asked for.
 */
export async function stepBetween(earlier: SignedTree, now: SignedTree, source: ConsistencySource): Promise<Step> {
  const need = proofNeeded(earlier, now);
  const proof = need ? await source(need.from, need.to) : null;
  return { compared: compareTrees(earlier, now, proof?.path ?? null), need, proof };
}

/** "tree size 62, #62 of 2026-…": a signed tree as the findings name it. */
const treeWords = (t: SignedTree) => `tree size ${n(t.size)}, ${t.checkpoint.at}`;

/**
 * The words of a fork, as every verifier says it: both checkpoints named (`earlier`: which one was
 * seen before, e.g. "the kept checkpoint"; `now`: the one seen now), and where they were written
 * as evidence when they were.
 */
export function forkFinding(
  why: string,
  earlier: { what: string; tree: SignedTree },
  now: { what: string; tree: SignedTree },
  evidenceFile?: string,
): string {
  return (
    `FORK: the appliance signed two histories: ${why}; ${earlier.what} (${treeWords(earlier.tree)}) and ` +
    `${now.what} (${treeWords(now.tree)})` +
    (evidenceFile ? ` are both written to ${evidenceFile}` : ', both signed by its key')
  );
}

/** The words of a newest checkpoint smaller than one signed before: the trail was cut. `where` it was kept, if said. */
export function cutFinding(newest: SignedTree, earlier: { what: string; tree: SignedTree; where?: string }): string {
  return (
    `the appliance's newest checkpoint (tree size ${n(newest.size)}) is older than ${earlier.what} ` +
    `(${treeWords(earlier.tree)}${earlier.where ? `, ${earlier.where}` : ''}): the trail was cut since`
  );
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
