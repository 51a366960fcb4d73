import { displayFingerprint } from '../text/fingerprint.js';
import { thousands } from '../text/thousands.js';
import { entryHash } from './canonical.js';
import { HEX64 } from './checkpoint.js';
import { leafHash, verifyInclusion } from './merkle.js';
import { MAX_SAMPLE, sampleLeaves } from './sample.js';
import { asTreeCheckpoint, verifyTreeCheckpoint, type SignedTree, type TreeCheckpoint } from './tree-checkpoint.js';
import { verdictOf, type Trust } from './verify-trail.js';
import type { Verdict } from './verdict.js';
import { witnessFindings, type WitnessKey } from './witness-check.js';

/**
 * The proof file an auditor carries away (docs/audit-chain.md, "Proof files"): entries as served,
 * each with its inclusion proof against one signed checkpoint (and, from `audit sample`, how they
 * were drawn). It verifies offline in O(log n) per entry: the checkpoint's note with a trusted key,
 * each entry's hash, its audit path to the signed root.
 */
export const PROOF_FORMAT = 'appliance-admin/audit-proof/v1';

/** A proof file larger than this is not read: MAX_SAMPLE entries of a few KiB each, with paths. */
export const PROOF_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** An audit path in a tree of at most 2^53 leaves. */
const MAX_PATH = 53;

export interface SampleStatement {
  /** hex: the seed the sample was drawn from (sample.ts) */
  seed: string;
  /** the time range asked for: the population starts at the first entry at or after `since` */
  since: string;
  until: string;
  /** how many entries the sample was drawn from: the last `population` leaves of the checkpoint's tree */
  population: number;
  size: number;
}

export interface ProvenEntry {
  entry: Record<string, unknown>;
  leaf_index: number;
  path: string[];
}

export interface ProofFile {
  format: typeof PROOF_FORMAT;
  checkpoint: TreeCheckpoint;
  sample: SampleStatement | null;
  entries: ProvenEntry[];
}

/** The file's text: one JSON object, the entries one to a line (so that a reader can look at them). */
export function proofFileText(p: ProofFile): string {
  const head = JSON.stringify({ format: p.format, checkpoint: p.checkpoint, sample: p.sample });
  const entries = p.entries.map((e) => JSON.stringify(e)).join(',\n');
  return `${head.slice(0, -1)},"entries":[\n${entries}\n]}\n`;
}

/** A proof file read from outside: its parts, shape-checked (nothing verified yet), or what is wrong. */
export function parseProofFile(text: string): ProofFile | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'it is not a JSON object';
  const o = v as Record<string, unknown>;
  if (o.format !== PROOF_FORMAT) return `it is not a proof file (format is not ${PROOF_FORMAT})`;
  const checkpoint = asTreeCheckpoint(o.checkpoint);
  if (typeof checkpoint === 'string') return `its checkpoint is unusable: ${checkpoint}`;
  const sample = o.sample === null || o.sample === undefined ? null : asSample(o.sample);
  if (typeof sample === 'string') return `its sample is unusable: ${sample}`;
  if (!Array.isArray(o.entries)) return 'it holds no list of entries';
  if (o.entries.length > MAX_SAMPLE) return `it holds more than ${thousands(MAX_SAMPLE)} entries`;
  const entries: ProvenEntry[] = [];
  for (const [i, e] of o.entries.entries()) {
    const r = e as Record<string, unknown> | null;
    const ok =
      r !== null &&
      typeof r === 'object' &&
      r.entry !== null &&
      typeof r.entry === 'object' &&
      !Array.isArray(r.entry) &&
      Number.isSafeInteger(r.leaf_index) &&
      (r.leaf_index as number) >= 0 &&
      Array.isArray(r.path) &&
      r.path.length <= MAX_PATH &&
      r.path.every((h) => typeof h === 'string' && HEX64.test(h));
    if (!ok) return `its entry ${i + 1} is not {entry, leaf_index, path: [64 hex digits, …]}`;
    entries.push({
      entry: r.entry as Record<string, unknown>,
      leaf_index: r.leaf_index as number,
      path: r.path as string[],
    });
  }
  return { format: PROOF_FORMAT, checkpoint, sample, entries };
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

function asSample(v: unknown): SampleStatement | string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const s = v as Record<string, unknown>;
  if (typeof s.seed !== 'string' || !/^([0-9a-f]{2}){16,64}$/.test(s.seed)) return 'its seed is not 16–64 bytes of hex';
  if (typeof s.since !== 'string' || !TIME.test(s.since) || typeof s.until !== 'string' || !TIME.test(s.until))
    return 'its since and until are not RFC 3339 UTC times';
  if (!Number.isSafeInteger(s.population) || (s.population as number) < 0) return 'its population is not a count';
  if (!Number.isSafeInteger(s.size) || (s.size as number) < 0 || (s.size as number) > MAX_SAMPLE)
    return 'its size is not a count';
  return { seed: s.seed, since: s.since, until: s.until, population: s.population as number, size: s.size as number };
}

export interface ProofReport {
  verdict: Verdict;
  findings: string[];
  unknowns: string[];
  notes: string[];
  proven: string | null;
  /** the checkpoint, once its note verified */
  tree: SignedTree | null;
}

const MAX_LISTED = 100;
const n = thousands;

/**
 * Verifies a proof file offline: the checkpoint's note with a trusted key (and each required
 * witness's cosignature), then every entry: its hash recomputes, its seq fits its leaf, its path
 * leads to the signed root; for a sample, that the entries are exactly those its seed draws.
 */
export function verifyProofFile(p: ProofFile, trust: Trust, o: { witnesses?: WitnessKey[] } = {}): ProofReport {
  const findings: string[] = [];
  const unknowns: string[] = [];
  const notes: string[] = [];
  const done = (tree: SignedTree | null): ProofReport => {
    const verdict = verdictOf(findings, unknowns, trust.pinned);
    const proven = verdict === 'verified' || verdict === 'verified-unpinned' ? provenWords(p, tree!, trust) : null;
    return { verdict, findings, unknowns, notes, proven, tree };
  };
  const checked = verifyTreeCheckpoint(p.checkpoint, trust, "the proof file's checkpoint");
  if (!checked.ok) {
    if ('finding' in checked) findings.push(checked.finding);
    else unknowns.push(checked.unknown);
    return done(null);
  }
  const tree = checked.tree;
  findings.push(...witnessFindings(tree, o.witnesses ?? []));
  const finding = (text: string) => {
    if (findings.length < MAX_LISTED) findings.push(text);
  };
  let last: { leaf: number; seq: number } | null = null;
  for (const { entry, leaf_index: leaf, path } of p.entries) {
    const seq = entry.seq;
    const label = Number.isSafeInteger(seq) ? `entry #${n(seq as number)}` : `the entry at leaf ${n(leaf)}`;
    if (!Number.isSafeInteger(seq) || (seq as number) < 1) {
      finding(`${label} has no valid seq`);
      continue;
    }
    const s = seq as number;
    if (typeof entry.hash !== 'string' || !HEX64.test(entry.hash)) {
      finding(`${label} has no hash`);
      continue;
    }
    let recomputed: string | null;
    try {
      recomputed = entryHash(entry);
    } catch {
      recomputed = null;
    }
    if (recomputed !== entry.hash) finding(`${label}: hash does not match its contents (it was changed)`);
    if (leaf >= tree.size) {
      finding(`${label}: leaf ${n(leaf)} is not in the checkpoint's tree of ${n(tree.size)}`);
      continue;
    }
    // seq counts from 1 and may skip (entries removed before the chain), so it is at least leaf + 1
    if (s < leaf + 1 || s > tree.checkpoint.seq) finding(`${label} cannot be leaf ${n(leaf)} of this checkpoint`);
    if (last && (leaf <= last.leaf || s <= last.seq)) finding(`${label} is out of order in the file`);
    if (leaf === tree.size - 1 && (s !== tree.checkpoint.seq || entry.hash !== tree.checkpoint.hash))
      finding(`${label} is the tree's last leaf, but the checkpoint's head is another entry`);
    const paths = path.map((h) => Buffer.from(h, 'hex'));
    if (!verifyInclusion(leafHash(entry.hash), leaf, tree.size, paths, tree.root))
      finding(
        `${label}: its inclusion proof does not lead to the checkpoint's root: it is not in the signed trail as it is`,
      );
    last = { leaf, seq: s };
  }
  if (p.sample) sampleFindings(p.sample, p.entries, tree, findings, notes);
  if (findings.length >= MAX_LISTED) findings.push('… and possibly more findings like those above');
  return done(tree);
}

function sampleFindings(
  s: SampleStatement,
  entries: ProvenEntry[],
  tree: SignedTree,
  findings: string[],
  notes: string[],
): void {
  if (s.population > tree.size) {
    findings.push(
      `the sample's population (${n(s.population)}) is larger than the checkpoint's tree (${n(tree.size)})`,
    );
    return;
  }
  if (s.size > s.population || s.size !== entries.length) {
    findings.push(
      `the sample states ${n(s.size)} entries of ${n(s.population)}, and the file holds ${n(entries.length)}`,
    );
    return;
  }
  const first = tree.size - s.population;
  const drawn = sampleLeaves(s.seed, first, s.population, s.size);
  const held = entries.map((e) => e.leaf_index);
  if (drawn.length !== held.length || drawn.some((l, i) => l !== held[i]))
    findings.push('the entries are not those the stated seed draws: the sample was chosen otherwise');
  for (const e of entries) {
    const at = typeof e.entry.at === 'string' ? Date.parse(e.entry.at) : NaN;
    if (!(at >= Date.parse(s.since))) {
      notes.push(
        `entry #${n(e.entry.seq as number)} was written before the sample's start (${s.since}): the appliance's clock stepped back?`,
      );
      break;
    }
  }
  notes.push(
    `the sample: ${n(s.size)} of ${n(s.population)} entries (leaves ${n(first)}–${n(tree.size - 1)}, from ${s.since} ` +
      `to the checkpoint of ${tree.checkpoint.at}), drawn from seed ${s.seed}`,
  );
  if (s.population > 0)
    notes.push(
      'that the population starts at the first entry of that time needs the entry before it, which the file does not ' +
        'hold; its end is the signed checkpoint',
    );
}

function provenWords(p: ProofFile, tree: SignedTree, trust: Trust): string {
  const seqs = p.entries.map((e) => e.entry.seq as number);
  const which =
    seqs.length === 0
      ? 'no entries'
      : seqs.length <= 5
        ? `entr${seqs.length === 1 ? 'y' : 'ies'} ${seqs.map((s) => `#${n(s)}`).join(', ')}`
        : `${n(seqs.length)} entries (#${n(seqs[0]!)}–#${n(seqs[seqs.length - 1]!)})`;
  return (
    `${which} unaltered and in the trail of ${tree.origin} at tree size ${n(tree.size)} (checkpoint #${n(tree.checkpoint.seq)} ` +
    `of ${tree.checkpoint.at}); signed by key ${displayFingerprint(tree.keyFingerprint)}, ` +
    `${trust.pinned ? trust.source : `${trust.source}, not pinned`}`
  );
}
