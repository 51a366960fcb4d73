import { thousands } from '../text/thousands.js';
import { WHOLE_TRAIL, type ExportScope } from './export-scope.js';
import { keyFingerprint, readPublicKey, showFingerprint, signatureValid, type Checkpoint } from './checkpoint.js';
import { ZERO_HASH, hashEntry } from './entry-hash.js';
import { HASHED_AS_READ, OTHER_READINGS, Unreadable, type AuditEntryLike, type TrailItem } from './trail-items.js';

export interface VerifyOptions {
  /** the appliance's signed head the file claims to end at */
  checkpoint?: Checkpoint;
  /** PEM (SPKI) Ed25519 public key the checkpoint must verify with */
  publicKeyPem?: string;
  /** a checkpoint kept from an earlier walkthrough: the file must still contain and extend it */
  since?: Checkpoint;
  /**
   * other checkpoints the appliance signed earlier (the live list, signatures checked by the
   * caller): each must still match its entry, and none may lie beyond the file's end
   */
  signed?: Checkpoint[];
  /** what the export can prove, from how it was narrowed (export-scope.ts); the whole trail when not given */
  scope?: ExportScope;
  /** called every PROGRESS_EVERY entries with the count so far */
  onProgress?: (entries: number) => void;
}

export interface VerifyReport {
  /** true when every check held */
  ok: boolean;
  entries: number;
  firstSeq: number | null;
  lastSeq: number | null;
  /** what does not hold, one sentence each */
  findings: string[];
  /** what holds and what cannot be known, one sentence each (not failures) */
  notes: string[];
}

const PROGRESS_EVERY = 50_000;
/** Findings about single entries beyond this many are counted, not listed: a forged file has a million. */
const MAX_LISTED = 100;

/** Entry numbers and counts as the dashboard's chain lines write them: #55,578 */
const n = thousands;
const short = (h: unknown) => (typeof h === 'string' ? `${h.slice(0, 12)}…` : String(h));
const missing = (from: number, to: number) =>
  from === to ? `entry #${n(from)} missing` : `entries #${n(from)}–#${n(to)} missing (${n(to - from + 1)})`;

/**
 * Checks an audit trail as exported (entries in file order, or batches of them) against the
 * scheme of docs/audit-chain.md, in one pass and constant memory: every hash recomputes; seq
 * increases; unless filtered, no seq is missing and every prev_hash links to the entry before;
 * the signed checkpoint verifies and is the file's end; a kept checkpoint is still there.
 */
export async function verifyTrail(
  items: Iterable<TrailItem | TrailItem[]> | AsyncIterable<TrailItem | TrailItem[]>,
  o: VerifyOptions = {},
): Promise<VerifyReport> {
  const findings: string[] = [];
  let unlisted = 0;
  const entryFinding = (text: string) => {
    if (findings.length < MAX_LISTED) findings.push(text);
    else unlisted++;
  };
  const scope = o.scope ?? WHOLE_TRAIL;
  const chained = scope.chained;
  let entries = 0;
  let altered = 0;
  let firstSeq: number | null = null;
  let lastSeq: number | null = null;
  let lastHash: unknown = null;
  let checkpointHash: unknown = undefined;
  let sinceHash: unknown = undefined;
  let beyondCheckpoint = 0;
  const signedAt = new Map((o.signed ?? []).map((c) => [c.seq, c]));

  const one = (item: TrailItem) => {
    if (item instanceof Unreadable) {
      entryFinding(`line ${n(item.line)}: ${item.reason}`);
      return;
    }
    entries++;
    if (o.onProgress && entries % PROGRESS_EVERY === 0) o.onProgress(entries);
    const seq = item.seq;
    if (!Number.isSafeInteger(seq) || (seq as number) < 1) {
      entryFinding(`entry ${n(entries)} of the file has no valid seq`);
      return;
    }
    const s = seq as number;
    const why = hashProblem(item);
    if (why) {
      altered++;
      entryFinding(`entry #${n(s)}: ${why}`);
    }
    if (lastSeq === null) {
      firstSeq = s;
      if (scope.fromStart && !o.since && s !== 1) findings.push(`the file starts at #${n(s)}: ${missing(1, s - 1)}`);
      if (chained && s === 1 && item.prev_hash !== ZERO_HASH) entryFinding('entry #1: prev_hash is not 64 zeros');
    } else if (s <= lastSeq) {
      entryFinding(`entry #${n(s)} is out of order: it comes after #${n(lastSeq)}`);
      return;
    } else if (chained && s > lastSeq + 1) {
      entryFinding(missing(lastSeq + 1, s - 1));
    } else if (chained && item.prev_hash !== lastHash) {
      entryFinding(`entry #${n(s)}: prev_hash does not link to #${n(lastSeq)}`);
    }
    lastSeq = s;
    lastHash = item.hash;
    if (o.checkpoint) {
      if (s === o.checkpoint.seq) checkpointHash = item.hash;
      else if (s > o.checkpoint.seq) beyondCheckpoint++;
    }
    if (o.since && s === o.since.seq) sinceHash = item.hash;
    if (signedAt.size) {
      const c = signedAt.get(s);
      if (c && c.hash !== item.hash)
        entryFinding(`entry #${n(s)} is not what the checkpoint of ${c.at} signed: the trail was rewritten after it`);
    }
  };

  for await (const item of items) {
    if (Array.isArray(item)) for (const i of item) one(i);
    else one(item);
  }

  if (unlisted) findings.push(`… and ${n(unlisted)} more findings like those above`);
  if (entries === 0 && scope.toHead) findings.push('the file holds no audit entries');
  const cp = o.checkpoint;
  if (!cp) {
    findings.push(
      'no checkpoint: nothing signed vouches for where the trail ends, so a cut tail or a re-hashed forgery would pass',
    );
  } else {
    findings.push(...signatureFindings(cp, o.publicKeyPem));
    if (lastSeq !== null && lastSeq < cp.seq && scope.toHead)
      findings.push(`the file ends at #${n(lastSeq)} but the checkpoint signed #${n(cp.seq)} (the tail is cut)`);
    else if (checkpointHash !== undefined && checkpointHash !== cp.hash)
      findings.push(
        `entry #${n(cp.seq)} is not what the checkpoint signed ` +
          `(hash ${short(checkpointHash)}, signed ${short(cp.hash)})`,
      );
    if (beyondCheckpoint)
      findings.push(
        `${n(beyondCheckpoint)} entries come after the signed checkpoint #${n(cp.seq)}: no signature covers them`,
      );
  }
  for (const c of o.signed ?? [])
    if (lastSeq !== null && c.seq > lastSeq && scope.toHead)
      findings.push(
        `the trail ends at #${n(lastSeq)} but the checkpoint of ${c.at} signed #${n(c.seq)} (the tail is cut)`,
      );
  if (o.since) findings.push(...sinceFindings(o.since, { firstSeq, lastSeq, sinceHash, scope, head: o.checkpoint }));
  const notes: string[] = [];
  if (!chained)
    notes.push(
      `filtered export: ${altered ? `${n(entries - altered)} of its ${n(entries)}` : `its ${n(entries)}`} ` +
        'entries are unaltered; a filtered export cannot prove the trail complete',
    );
  else if (firstSeq !== null && (!scope.fromStart || !scope.toHead)) {
    const unknown = [
      ...(scope.fromStart ? [] : [`before #${n(firstSeq)}`]),
      ...(scope.toHead ? [] : [`after #${n(lastSeq ?? firstSeq)}`]),
    ];
    notes.push(
      `time-range export: its entries #${n(firstSeq)}–#${n(lastSeq ?? firstSeq)} ` +
        'are checked as a run of the trail; ' +
        `whether entries ${unknown.join(' or ')} were removed cannot be shown from it`,
    );
  }
  return { ok: findings.length === 0, entries, firstSeq, lastSeq, findings, notes };
}

/** Why the entry's hash does not recompute, or null when it does (any reading of an ambiguous record). */
function hashProblem(e: AuditEntryLike): string | null {
  if (e[HASHED_AS_READ]) return null;
  const stated = e.hash;
  if (typeof stated !== 'string') return 'it has no hash';
  try {
    if (hashEntry(e) === stated) return null;
    const others = e[OTHER_READINGS];
    if (others) for (const reading of others()) if (hashEntry(reading) === stated) return null;
    return 'hash does not match its contents';
  } catch (err) {
    return `cannot be hashed: ${(err as Error).message}`;
  }
}

function signatureFindings(cp: Checkpoint, pem: string | undefined): string[] {
  if (!pem) return ['no public key given: the checkpoint signature was not checked, so a re-hashed forgery would pass'];
  const key = readPublicKey(pem);
  if (typeof key === 'string') return [`the public key is unusable: ${key}`];
  const fingerprint = keyFingerprint(key);
  if (signatureValid(cp, key)) return [];
  const other =
    cp.key_fingerprint !== fingerprint ? ` (the checkpoint names key ${showFingerprint(cp.key_fingerprint)})` : '';
  return [`checkpoint signature does not verify with key ${showFingerprint(fingerprint)}${other}`];
}

function sinceFindings(
  kept: Checkpoint,
  s: { firstSeq: number | null; lastSeq: number | null; sinceHash: unknown; scope: ExportScope; head?: Checkpoint },
): string[] {
  if (s.lastSeq === null || s.lastSeq < kept.seq) {
    // the file's own signed head is older than the kept one: it was exported before, nothing says the trail was cut
    if (s.head && s.head.seq < kept.seq && Date.parse(s.head.at) < Date.parse(kept.at))
      return [
        `the file predates the kept checkpoint: it was exported at #${n(s.head.seq)} (${s.head.at}), before ` +
          `the kept checkpoint #${n(kept.seq)} (${kept.at}), so it cannot show it; export the trail again`,
      ];
    if (!s.scope.toHead)
      return [`the kept checkpoint's entry #${n(kept.seq)} is after this export's end: it cannot be compared`];
    return [
      `the file ends at #${n(s.lastSeq ?? 0)} but the kept checkpoint was at #${n(kept.seq)} (the trail was cut since)`,
    ];
  }
  if (s.sinceHash === undefined)
    return s.scope.chained
      ? [`the kept checkpoint's entry #${n(kept.seq)} is not in the file (it starts at #${n(s.firstSeq ?? 0)})`]
      : [`the kept checkpoint's entry #${n(kept.seq)} is not in this filtered export: it cannot be compared`];
  if (s.sinceHash !== kept.hash)
    return [`entry #${n(kept.seq)} is no longer what the kept checkpoint recorded: the trail was rewritten since`];
  return [];
}
