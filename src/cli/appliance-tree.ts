import { keysByFingerprint } from '../audit-chain/checkpoint.js';
import { HEX64 } from '../audit-chain/checkpoint.js';
import { asTreeCheckpoint, verifyTreeCheckpoint, type SignedTree } from '../audit-chain/tree-checkpoint.js';
import type { Trust } from '../audit-chain/verify-trail.js';
import { ApiError, TransportError } from '../client/errors.js';
import { thousands } from '../text/thousands.js';
import type { ApplianceStream } from './appliance-stream.js';
import { consistencyOfAnswer, type ConsistencySource } from '../audit-chain/tree-consistency.js';

/**
 * The appliance's tree as the CLI reads it (docs/audit-chain.md, "Proofs"): its newest checkpoint
 * with the signed note, inclusion and consistency proofs, an entry by its seq, and the witnesses'
 * cosignature route. Answers are parsed as they came and shape-checked here; what they prove is
 * decided by the verifiers in src/audit-chain, never by this file.
 */

/** A check that ended before a verdict could be reached: its words and its verdict. */
export class TreeRefusal extends Error {
  override name = 'TreeRefusal';
  constructor(
    message: string,
    readonly verdict: 'broken' | 'cannot-check',
  ) {
    super(message);
  }
}

export interface InclusionAnswer {
  seq: number;
  leaf_index: number;
  tree_size: number;
  entry_hash: string;
  path: string[];
}

const isHexList = (v: unknown, max: number): v is string[] =>
  Array.isArray(v) && v.length <= max && v.every((h) => typeof h === 'string' && HEX64.test(h));

export class ApplianceTree {
  constructor(private readonly a: ApplianceStream) {}

  /**
   * The newest checkpoint, its note verified with `pinned` (else the keys the appliance serves,
   * which proves only that the appliance signed it): refused when it carries no tree. `listed`:
   * the checkpoint list as already read (one read of it per run).
   */
  async newest(pinned: Trust | undefined, listed?: unknown): Promise<{ tree: SignedTree; trust: Trust }> {
    const list = (listed ?? (await this.a.json('listAuditCheckpoints', { limit: 1 }))) as Record<
      string,
      unknown
    > | null;
    if (!list || !Array.isArray(list.data))
      throw new TreeRefusal('the checkpoint list is not a list (no data)', 'broken');
    const trust: Trust = pinned ?? {
      keys: keysByFingerprint(Array.isArray(list.public_keys) ? list.public_keys : [], 100),
      pinned: false,
      source: 'the keys the appliance serves',
    };
    if (!list.data.length) throw new TreeRefusal('the appliance lists no signed checkpoint yet', 'cannot-check');
    const c = asTreeCheckpoint(list.data[0]);
    if (typeof c === 'string')
      throw new TreeRefusal(`the appliance's newest checkpoint is unusable: ${c}`, 'cannot-check');
    const checked = verifyTreeCheckpoint(c, trust, "the appliance's newest checkpoint");
    if (!checked.ok)
      throw 'finding' in checked
        ? new TreeRefusal(checked.finding, 'broken')
        : new TreeRefusal(checked.unknown, 'cannot-check');
    return { tree: checked.tree, trust };
  }

  /** Entry `seq`'s inclusion proof in the tree of `size`; null when the appliance has no entry `seq`. */
  async inclusion(seq: number, size: number): Promise<InclusionAnswer | null> {
    let v: Record<string, unknown> | null;
    try {
      v = (await this.a.json('/audit/proofs/inclusion', { seq, tree_size: size })) as Record<string, unknown> | null;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
    if (
      !v ||
      v.seq !== seq ||
      v.tree_size !== size ||
      !Number.isSafeInteger(v.leaf_index) ||
      typeof v.entry_hash !== 'string' ||
      !HEX64.test(v.entry_hash) ||
      !isHexList(v.path, 64)
    )
      throw new TransportError('protocol', `the inclusion proof of entry #${thousands(seq)} is not one`);
    return v as unknown as InclusionAnswer;
  }

  /** The entry of that seq, as served; null when there is none. */
  async entry(seq: number): Promise<Record<string, unknown> | null> {
    const v = (await this.a.json('listAudit', { seq, limit: 1 })) as { data?: unknown } | null;
    if (!v || !Array.isArray(v.data))
      throw new TransportError('protocol', `the answer for entry #${seq} is not a list`);
    const e = v.data[0] as Record<string, unknown> | undefined;
    if (e === undefined) return null;
    if (e === null || typeof e !== 'object' || Array.isArray(e) || e.seq !== seq)
      throw new TransportError('protocol', `the appliance answered another entry than #${thousands(seq)}`);
    return e;
  }

  /** The newest entry written before `time` (the list is newest first), or null when none is. */
  async lastBefore(time: string): Promise<Record<string, unknown> | null> {
    const v = (await this.a.json('listAudit', { end_time: time, limit: 1 })) as { data?: unknown } | null;
    if (!v || !Array.isArray(v.data)) throw new TransportError('protocol', 'the audit list is not a list');
    const e = v.data[0] as Record<string, unknown> | undefined;
    return e && typeof e === 'object' && Number.isSafeInteger(e.seq) ? e : null;
  }

  /** Consistency proofs, as the remembered-checkpoint and witness checks ask them; a 400 is no proof (null). */
  readonly consistency: ConsistencySource = async (from, to) => {
    let v: Record<string, unknown> | null;
    try {
      v = (await this.a.json('/audit/proofs/consistency', { from, to })) as Record<string, unknown> | null;
    } catch (err) {
      if (err instanceof ApiError && (err.status === 400 || err.status === 404)) return null;
      throw err;
    }
    const proof = consistencyOfAnswer(v, from, to);
    if (!proof) throw new TransportError('protocol', `the consistency proof from ${from} to ${to} is not one`);
    return proof;
  };

  /** Hands the appliance a witness's cosigned note. */
  cosign(note: string, witnessKey: string): Promise<unknown> {
    return this.a.post('cosignAuditCheckpoint', { note, witness_key: witnessKey });
  }
}
