import { asCheckpoint, checkpointSignatureValid, type Checkpoint } from '../audit-chain/checkpoint.js';
import { PROOF_FORMAT } from '../audit-chain/proof-file.js';
import { parseStatementFile } from '../audit-chain/statement.js';
import { asTreeCheckpoint, verifyTreeCheckpoint, type TreeCheckpoint } from '../audit-chain/tree-checkpoint.js';
import { cutFinding, forkEvidence, forkFinding, stepBetween } from '../audit-chain/tree-consistency.js';
import { verdictOf, type Trust } from '../audit-chain/verify-trail.js';
import type { Verdict } from '../audit-chain/verdict.js';
import { witnessFindings, type WitnessKey } from '../audit-chain/witness-check.js';
import { displayFingerprint } from '../text/fingerprint.js';
import { thousands } from '../text/thousands.js';
import { TreeRefusal, type ApplianceTree } from './appliance-tree.js';
import { STATE_FORMAT, type CheckpointState } from './checkpoint-state.js';
import { checkRemembered } from './remembered-check.js';

const n = thousands;

/**
 * A kept checkpoint (`audit verify --since FILE`) from any file that holds one: a proof file, the
 * CLI's remembered checkpoint, a checkpoint as served, or an export's statement file (whose
 * checkpoint carries no tree: the trail is then read again, as before the tree). A sentence when none.
 */
export function keptOfText(text: string): { checkpoint: Checkpoint; tree: TreeCheckpoint | null } | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  const o = (v ?? {}) as Record<string, unknown>;
  const held = o.format === PROOF_FORMAT || o.format === STATE_FORMAT ? o.checkpoint : 'seq' in o ? o : undefined;
  if (held !== undefined) {
    const c = asCheckpoint(held);
    if (typeof c === 'string') return c;
    const tree = asTreeCheckpoint(held);
    return { checkpoint: c, tree: typeof tree === 'string' ? null : tree };
  }
  const parsed = parseStatementFile(text);
  if (typeof parsed === 'string') return parsed;
  if (!parsed.checkpoint) return 'it holds no checkpoint';
  return { checkpoint: parsed.checkpoint, tree: null };
}

export interface TreeReport {
  findings: string[];
  unknowns: string[];
  notes: string[];
  proven: string | null;
  verdict: Verdict;
}

/**
 * What the tree adds to a live verify: the newest checkpoint's note verifies, carries every required
 * witness's cosignature, and extends the checkpoint this machine remembered from its last run.
 */
export async function liveTreeChecks(
  tree: ApplianceTree,
  pinned: Trust | undefined,
  witnesses: WitnessKey[],
  state: CheckpointState,
  listed: unknown,
): Promise<Omit<TreeReport, 'proven' | 'verdict'>> {
  const out = { findings: [] as string[], unknowns: [] as string[], notes: [] as string[] };
  let newest;
  let trust: Trust;
  try {
    ({ tree: newest, trust } = await tree.newest(pinned, listed));
  } catch (err) {
    if (!(err instanceof TreeRefusal)) throw err;
    // an appliance from before the tree: the whole-trail verify stands; a required witness cannot be shown
    if (witnesses.length || err.verdict === 'broken')
      (err.verdict === 'broken' ? out.findings : out.unknowns).push(err.message);
    else out.notes.push(`${err.message}: no inclusion, consistency or witness checks`);
    return out;
  }
  out.findings.push(...witnessFindings(newest, witnesses));
  const r = await checkRemembered(state, newest, trust, tree.consistency);
  out.findings.push(...r.findings);
  out.unknowns.push(...r.unknowns);
  out.notes.push(...r.notes);
  for (const w of witnesses)
    if (!out.findings.length) out.notes.push(`the newest checkpoint is cosigned by witness ${w.name}`);
  return out;
}

/**
 * `audit verify --url --since KEPT` when KEPT carries a tree: the trail only grew since, proven by a
 * consistency proof from the kept tree to the newest one, without reading the entries between.
 */
export async function verifySinceByConsistency(
  tree: ApplianceTree,
  kept: TreeCheckpoint,
  pinned: Trust | undefined,
  witnesses: WitnessKey[],
  state: CheckpointState,
): Promise<TreeReport> {
  const { tree: newest, trust } = await tree.newest(pinned);
  const findings: string[] = [];
  const unknowns: string[] = [];
  const notes: string[] = [];
  const report = (proven: string | null): TreeReport => {
    const verdict = verdictOf(findings, unknowns, trust.pinned);
    return { findings, unknowns, notes, verdict, proven: verdict.startsWith('verified') ? proven : null };
  };
  const checked = verifyTreeCheckpoint(kept, trust, 'the kept checkpoint');
  if (!checked.ok) {
    const key = trust.keys.get(kept.key_fingerprint);
    // worded as every verifier words a kept checkpoint that does not verify (verify-trail.ts)
    if (key && !checkpointSignatureValid(kept, key))
      findings.push(
        `the kept checkpoint #${n(kept.seq)} is not signed by ${trust.source}: it was edited, or kept from another appliance`,
      );
    else if ('finding' in checked) findings.push(checked.finding);
    else unknowns.push(checked.unknown);
    return report(null);
  }
  const before = checked.tree;
  const { compared, need, proof } = await stepBetween(before, newest, tree.consistency);
  const keptOne = { what: 'the kept checkpoint', tree: before };
  if (compared.kind === 'older') findings.push(cutFinding(newest, keptOne));
  if (compared.kind === 'fork') {
    const foundAt = new Date().toISOString();
    const file = state.writeFork(
      forkEvidence(before.checkpoint, newest.checkpoint, compared.why, {
        foundAt,
        source: 'the kept checkpoint (--since)',
        proof: need ? { ...need, path: proof?.served ?? [] } : null,
      }),
      foundAt,
    );
    findings.push(forkFinding(compared.why, keptOne, { what: 'the newest', tree: newest }, file));
  }
  findings.push(...witnessFindings(newest, witnesses));
  const r = await checkRemembered(state, newest, trust, tree.consistency);
  findings.push(...r.findings);
  unknowns.push(...r.unknowns);
  notes.push(...r.notes);
  const how =
    compared.kind === 'same'
      ? 'the same tree'
      : `proven by a consistency proof of ${n(proof?.path.length ?? 0)} hashes, without reading the ` +
        `${n(newest.size - before.size)} entries between`;
  return report(
    `the trail at tree size ${n(newest.size)} (checkpoint #${n(newest.checkpoint.seq)} of ${newest.checkpoint.at}) ` +
      `extends the kept checkpoint #${n(before.checkpoint.seq)} (tree size ${n(before.size)}): ${how}; signed by key ` +
      `${displayFingerprint(newest.keyFingerprint)}, ${trust.pinned ? trust.source : `${trust.source}, not pinned`}`,
  );
}
