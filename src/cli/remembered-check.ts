import type { SignedTree } from '../audit-chain/tree-checkpoint.js';
import {
  compareTrees,
  cutFinding,
  forkEvidence,
  forkFinding,
  proofNeeded,
  type ConsistencySource,
} from '../audit-chain/tree-consistency.js';
import type { Trust } from '../audit-chain/verify-trail.js';
import { thousands } from '../text/thousands.js';
import type { CheckpointState } from './checkpoint-state.js';

const n = thousands;

export type { ConsistencySource };

export interface RememberedResult {
  findings: string[];
  unknowns: string[];
  notes: string[];
  /** evidence files written, one per fork found */
  forks: string[];
}

/**
 * Checks the newest checkpoint against every checkpoint remembered from earlier runs under the
 * appliance's keys, as Go's checksum database client does: it must extend them (a consistency
 * proof), never go back, never be another history. Then it is remembered. `source` null: offline
 * (a proof file), where only a checkpoint of the same tree size can be compared.
 */
export async function checkRemembered(
  state: CheckpointState,
  newest: SignedTree,
  trust: Trust,
  source: ConsistencySource | null,
  now: () => Date = () => new Date(),
): Promise<RememberedResult> {
  const r: RememberedResult = { findings: [], unknowns: [], notes: [], forks: [] };
  let keep = true;
  for (const kept of state.remembered(trust)) {
    if ('unusable' in kept) {
      r.unknowns.push(`the checkpoint remembered in ${kept.file} is unusable: ${kept.unusable}`);
      keep = false;
      continue;
    }
    const before = kept.tree;
    const need = proofNeeded(before, newest);
    if (need && !source) {
      r.notes.push(
        `the checkpoint remembered from an earlier run (tree size ${n(before.size)}) is another size: its consistency ` +
          'with this one is checked on the next run against the appliance',
      );
      keep = false;
      continue;
    }
    let proof: Awaited<ReturnType<ConsistencySource>> = null;
    if (need && source) {
      try {
        proof = await source(need.from, need.to);
      } catch (err) {
        r.unknowns.push(
          `the consistency proof from tree size ${n(need.from)} to ${n(need.to)} could not be fetched: ${(err as Error).message}`,
        );
        keep = false;
        continue;
      }
    }
    const compared = compareTrees(before, newest, proof?.path ?? null);
    if (compared.kind === 'same' || compared.kind === 'extends') {
      r.notes.push(
        compared.kind === 'same'
          ? `the same checkpoint as remembered from an earlier run (tree size ${n(newest.size)})`
          : `it extends the checkpoint remembered from an earlier run (tree size ${n(before.size)} of ` +
              `${before.checkpoint.at}): proven by a consistency proof of ${n(proof!.path.length)} hashes`,
      );
      continue;
    }
    keep = false;
    if (compared.kind === 'older') {
      r.findings.push(
        cutFinding(newest, { what: 'one it signed before', tree: before, where: `remembered in ${kept.file}` }),
      );
      continue;
    }
    const foundAt = now().toISOString();
    const file = state.writeFork(
      forkEvidence(before.checkpoint, newest.checkpoint, compared.why, {
        foundAt,
        source: `remembered in ${kept.file}`,
        proof: need ? { ...need, path: proof?.served ?? [] } : null,
      }),
      foundAt,
    );
    r.forks.push(file);
    r.findings.push(
      forkFinding(
        compared.why,
        { what: 'the checkpoint remembered from an earlier run', tree: before },
        { what: 'this one', tree: newest },
        file,
      ),
    );
  }
  if (keep) state.remember(newest);
  return r;
}
