/**
 * The dashboard's kept checkpoint (memory.ts) moved forward as `audit verify --since` moves from a
 * kept checkpoint: by a consistency proof from the kept tree to the newest signed one
 * (docs/audit-chain.md, "What the dashboard checks"), without reading the entries between. A
 * newer checkpoint that no proof joins to the kept one is a fork: a break for the rest of the run,
 * both checkpoints named as the CLI names them. Loaded with the chain checks, not for the first frame.
 */
import type { KeyObject } from 'node:crypto';
import { thousands } from '../text/thousands.js';
import { keysByFingerprint } from './checkpoint.js';
import { memoryOf, keepCheckpoint, rememberBreak } from './memory.js';
import { pinnedKeysOf } from './pinned-keys.js';
import { asTreeCheckpoint, verifyTreeCheckpoint } from './tree-checkpoint.js';
import { forkEvidence, forkFinding, stepBetween, type ConsistencySource } from './tree-consistency.js';
import type { Trust } from './verify-trail.js';

/** What a step did: kept the newer checkpoint, found a fork, or nothing (nothing to prove, or not provable here). */
export type Advance = 'kept' | 'fork' | 'nothing';

/**
 * Moves the kept checkpoint of the appliance whose checkpoint list answer (GET /audit/checkpoints, as
 * served) this is to its newest checkpoint, when that one is a larger tree than the kept one and both
 * carry their signed tree. `pinnedPem`: the audit key file pinned for this appliance (only its keys are
 * trusted then). Everything else (the first checkpoint kept, one not larger, a checkpoint whose
 * signature fails, one without a tree) is the page check's (page-check.ts, kept.ts), which reads the
 * same answer. Throws when the proof could not be asked for: nothing is decided then.
 */
export async function advanceKept(
  list: unknown,
  o: {
    pinnedPem?: string;
    consistency: ConsistencySource;
    /** keeps a fork's evidence (the CLI's forks folder) and returns the file, as the CLI's checks do */
    writeFork?: (evidence: string, foundAt: string) => Promise<string>;
  },
): Promise<Advance> {
  const body = (list ?? {}) as { data?: unknown; public_keys?: unknown };
  const served = Array.isArray(body.public_keys)
    ? keysByFingerprint(body.public_keys, 100)
    : new Map<string, KeyObject>();
  const trust = trustOf(served, o.pinnedPem);
  if (!trust || !Array.isArray(body.data) || body.data.length === 0) return 'nothing';
  const memory = memoryOf([...served.keys()]);
  const kept = memory.kept ? asTreeCheckpoint(memory.kept) : null;
  const newest = asTreeCheckpoint(body.data[0]);
  if (memory.broken || !kept || typeof kept === 'string' || typeof newest === 'string') return 'nothing';
  if (newest.tree_size <= kept.tree_size) return 'nothing';
  const before = verifyTreeCheckpoint(kept, trust, 'the kept checkpoint');
  const now = verifyTreeCheckpoint(newest, trust, "the appliance's newest checkpoint");
  if (!before.ok || !now.ok) return 'nothing';
  const { compared, need, proof } = await stepBetween(before.tree, now.tree, o.consistency);
  if (compared.kind === 'extends') {
    // the kept one may have moved on while the proof was asked for (a page, a V): never moved back
    if (!memory.kept || memory.kept.seq < newest.seq) keepCheckpoint(memory, newest);
    return 'kept';
  }
  if (compared.kind !== 'fork') return 'nothing';
  const foundAt = new Date().toISOString();
  let file: string | undefined;
  try {
    file = await o.writeFork?.(
      forkEvidence(before.tree.checkpoint, now.tree.checkpoint, compared.why, {
        foundAt,
        source: 'the checkpoint kept by the dashboard',
        proof: need ? { ...need, path: proof?.served ?? [] } : null,
      }),
      foundAt,
    );
  } catch {
    // evidence that cannot be written (a full disk, a folder not writable): the fork is said all the same
  }
  rememberBreak(memory, {
    ok: false,
    seq: null,
    finding: forkFinding(
      compared.why,
      { what: `the checkpoint #${thousands(kept.seq)} kept by this dashboard`, tree: before.tree },
      { what: `the newest, #${thousands(newest.seq)}`, tree: now.tree },
      file,
    ),
  });
  return 'fork';
}

/** The keys a step is checked with: the pinned ones when a key file is pinned, else those the appliance serves. */
function trustOf(served: Map<string, KeyObject>, pinnedPem: string | undefined): Trust | null {
  if (pinnedPem === undefined) return { keys: served, pinned: false, source: 'the keys the appliance serves' };
  const pinned = pinnedKeysOf(pinnedPem);
  // an unusable key file is the page check's to say ("chain not checked")
  return typeof pinned === 'string' ? null : { keys: pinned, pinned: true, source: 'the key you pinned' };
}
