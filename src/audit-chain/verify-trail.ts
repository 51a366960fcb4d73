import type { KeyObject } from 'node:crypto';
import { displayFingerprint } from '../text/fingerprint.js';
import { thousands } from '../text/thousands.js';
import { entryHash, GENESIS_HASH } from './canonical.js';
import { checkpointSignatureValid, type Checkpoint } from './checkpoint.js';
import {
  TIME_FILTERS,
  scopeOf,
  selectionDigest,
  statementSignatureValid,
  wholeTrailClaim,
  type ExportStatement,
  type SignedStatement,
} from './statement.js';
import {
  HASHED_AS_READ,
  NOT_CANONICAL,
  OTHER_READINGS,
  Unreadable,
  type AuditEntryLike,
  type TrailItem,
} from './trail-items.js';
import type { Verdict } from './verdict.js';

/** The keys a verifier believes, and whether they were given out of band. */
export interface Trust {
  /** public keys by their computed fingerprint */
  keys: Map<string, KeyObject>;
  /** true when given out of band (--key, the config's audit-key): only then is "verified" proof */
  pinned: boolean;
  /** what they are, for the words: "the key you pinned", "the keys the appliance serves" */
  source: string;
}

export interface VerifyOptions {
  /** the file's signed statement (the export's Audit-Export-Statement, FILE.checkpoint.json) */
  statement?: SignedStatement | null;
  /** the head's checkpoint, for a file from an appliance that signs no statement: proves a whole trail only */
  checkpoint?: Checkpoint | null;
  trust: Trust;
  /** the filters the caller asked for (--url and V ask for none): the statement must be for them */
  asked?: Record<string, string>;
  /** a checkpoint kept from an earlier visit: signed by a trusted key, and the trail must still hold it */
  since?: Checkpoint;
  /**
   * checkpoints the appliance listed before the export, their signatures verified with `trust`
   * (signedCheckpoints): each must match its entry, and none may lie beyond the export's head
   */
  signed?: Checkpoint[];
  /** the file's format as its reader told it (readTrail's `info`): a statement signs one */
  format?: { value?: 'jsonl' | 'csv' };
  /** called every PROGRESS_EVERY entries with the count so far */
  onProgress?: (entries: number) => void;
}

export interface VerifyReport {
  verdict: Verdict;
  entries: number;
  firstSeq: number | null;
  lastSeq: number | null;
  /** what does not hold, one sentence each: the verdict is broken */
  findings: string[];
  /** what could not be checked, one sentence each: the verdict is cannot-check when nothing is broken */
  unknowns: string[];
  /** what holds and what the file cannot tell, one sentence each */
  notes: string[];
  /** what was proven, in one sentence, when the verdict is verified (pinned or not) */
  proven: string | null;
  /** the statement the file was checked against (as signed, or what a checkpoint alone proves) */
  claim: ExportStatement | null;
  /** the key that signed it, when one verified */
  keyFingerprint: string | null;
}

const PROGRESS_EVERY = 50_000;
/** Findings about single entries beyond this many are counted, not listed: a forged file has a million. */
const MAX_LISTED = 100;

const n = thousands;
const short = (h: unknown) => (typeof h === 'string' ? `${h.slice(0, 12)}…` : String(h));
const missing = (from: number, to: number) =>
  from === to ? `entry #${n(from)} missing` : `entries #${n(from)}–#${n(to)} missing (${n(to - from + 1)})`;
const filterWords = (f: Record<string, string>) =>
  Object.keys(f).length
    ? Object.entries(f)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(', ')
    : 'none';

/**
 * Checks an audit export (entries in file order, or batches of them) against the appliance's signed
 * statement of what it holds (docs/audit-chain.md), in one pass and constant memory: the signature
 * verifies with a trusted key; every line is the canonical one and its hash recomputes; the file
 * holds exactly the signed count, from the signed first to the signed last entry; a contiguous file
 * links from the signed first prev_hash to the signed last hash with no seq missing, any other has
 * the signed digest; a kept checkpoint and the appliance's listed checkpoints still match. Reading
 * stops once the file holds more entries than were signed.
 */
export async function verifyTrail(
  items: Iterable<TrailItem | TrailItem[]> | AsyncIterable<TrailItem | TrailItem[]>,
  o: VerifyOptions,
): Promise<VerifyReport> {
  const findings: string[] = [];
  const unknowns: string[] = [];
  const notes: string[] = [];
  let unlisted = 0;
  const entryFinding = (text: string) => {
    if (findings.length < MAX_LISTED) findings.push(text);
    else unlisted++;
  };

  const signer = claimOf(o);
  findings.push(...signer.findings);
  unknowns.push(...signer.unknowns);
  const claim = signer.claim;
  if (claim && o.asked && filterWords(claim.filters) !== filterWords(sorted(o.asked)))
    findings.push(
      `the appliance's signed statement is for another export (filters: ${filterWords(claim.filters)}), ` +
        `not the one asked for (filters: ${filterWords(sorted(o.asked))})`,
    );

  const digest = claim && claim.digest !== null ? selectionDigest() : null;
  // the whole trail must be a run: a gap in it is entries missing, whatever the statement says of itself.
  // A time range is one when the appliance signs it so; when the clock stepped back inside it, it signs
  // the range as a selection (its digest), as it does for any other filter
  const wholeTrail = claim !== null && Object.keys(claim.filters).length === 0;
  const chained = claim !== null && (claim.contiguous || wholeTrail);
  const signedAt = new Map((o.signed ?? []).map((c) => [c.seq, c]));
  let entries = 0;
  let firstSeq: number | null = null;
  let firstPrev: unknown = null;
  let lastSeq: number | null = null;
  let lastHash: unknown = null;
  let sinceHash: unknown = undefined;
  let tooMany = false;

  const one = (item: TrailItem): void => {
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
    if (why) entryFinding(`entry #${n(s)}: ${why}`);
    if (lastSeq === null) {
      firstSeq = s;
      firstPrev = item.prev_hash;
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
    digest?.add(typeof item.hash === 'string' && /^[0-9a-f]{64}$/.test(item.hash) ? item.hash : '');
    if (o.since && s === o.since.seq) sinceHash = item.hash;
    const c = signedAt.get(s);
    if (c && c.hash !== item.hash)
      entryFinding(`entry #${n(s)} is not what the checkpoint of ${c.at} signed: the trail was rewritten after it`);
  };

  reading: for await (const item of items) {
    for (const i of Array.isArray(item) ? item : [item]) {
      one(i);
      // a file holding more than was signed is not read to its end: a hostile one never ends
      if (claim && entries > claim.count) {
        tooMany = true;
        break reading;
      }
    }
  }

  if (unlisted) findings.push(`… and ${n(unlisted)} more findings like those above`);
  if (claim) {
    const scope = scopeOf(claim);
    if (tooMany)
      findings.push(`the file holds more entries than the ${n(claim.count)} the appliance signed (read no further)`);
    else if (entries !== claim.count)
      findings.push(`the file holds ${n(entries)} entries, the appliance signed ${n(claim.count)}`);
    if (claim.first_seq !== null && firstSeq !== claim.first_seq)
      findings.push(
        firstSeq === null
          ? 'the file holds no audit entries'
          : firstSeq > claim.first_seq && claim.contiguous
            ? `the file starts at #${n(firstSeq)}: ${missing(claim.first_seq, firstSeq - 1)}`
            : `the file starts at #${n(firstSeq)}, the appliance signed #${n(claim.first_seq)}`,
      );
    else if (chained && claim.first_prev_hash !== null && firstPrev !== claim.first_prev_hash)
      findings.push(`entry #${n(firstSeq ?? 0)}: prev_hash is not the one the appliance signed`);
    if (wholeTrail && claim.first_seq !== null && claim.first_seq > 1)
      findings.push(`the trail starts at #${n(claim.first_seq)}: ${missing(1, claim.first_seq - 1)}`);
    else if (wholeTrail && claim.first_seq === 1 && claim.first_prev_hash !== GENESIS_HASH)
      findings.push('the trail does not start with the genesis prev_hash');
    if (wholeTrail && claim.last_seq !== claim.head.seq)
      findings.push(`the trail ends at #${n(claim.last_seq ?? 0)}, before its head #${n(claim.head.seq)}`);
    if (claim.last_seq !== null && lastSeq !== null && lastSeq !== claim.last_seq && !tooMany)
      findings.push(
        lastSeq < claim.last_seq
          ? `the file ends at #${n(lastSeq)} but the appliance signed #${n(claim.last_seq)} as its last (the tail is cut)`
          : `the file ends at #${n(lastSeq)}, the appliance signed #${n(claim.last_seq)} as its last`,
      );
    else if (claim.last_hash !== null && lastSeq === claim.last_seq && lastHash !== claim.last_hash)
      findings.push(
        `entry #${n(claim.last_seq ?? 0)} is not what the appliance signed (hash ${short(lastHash)}, ` +
          `signed ${short(claim.last_hash)})`,
      );
    if (digest && claim.digest !== null && !tooMany && digest.hex() !== claim.digest)
      findings.push('the entries are not those the appliance selected: their hashes do not give the signed digest');
    if (claim.last_seq === claim.head.seq && claim.last_hash !== claim.head.hash)
      findings.push('the statement contradicts itself: its last entry is its head, with another hash');
    for (const c of o.signed ?? [])
      if (c.seq > claim.head.seq)
        findings.push(
          `the appliance signed #${n(c.seq)} on ${c.at}, before this export, whose head is #${n(claim.head.seq)}: ` +
            'the trail was cut since',
        );
      else if (c.seq === claim.head.seq && c.hash !== claim.head.hash)
        findings.push(`the checkpoint of ${c.at} signed another entry #${n(c.seq)} than this export's head`);
    if (o.statement && o.format?.value && o.format.value !== claim.format)
      findings.push(`the statement is for a ${claim.format} export, and this file is ${o.format.value}`);
    if (o.since) sinceFindings(o.since, claim, sinceHash, findings, unknowns);
    notes.push(...scopeNotes(claim, scope));
  } else if (o.since) unknowns.push('the kept checkpoint cannot be compared with a file nothing signed');
  if (o.since) keptSignatureFindings(o.since, o.trust, findings, unknowns);

  const verdict = verdictOf(findings, unknowns, o.trust.pinned);
  const proven =
    verdict === 'verified' || verdict === 'verified-unpinned' ? provenWords(claim!, o.trust, signer) : null;
  return {
    verdict,
    entries,
    firstSeq,
    lastSeq,
    findings,
    unknowns,
    notes,
    proven,
    claim,
    keyFingerprint: signer.fingerprint,
  };
}

/** Broken over could not check over verified; verified only with a pinned key. */
export const verdictOf = (findings: string[], unknowns: string[], pinned: boolean): Verdict =>
  findings.length ? 'broken' : unknowns.length ? 'cannot-check' : pinned ? 'verified' : 'verified-unpinned';

const sorted = (f: Record<string, string>) =>
  Object.fromEntries(Object.entries(f).sort(([a], [b]) => (a < b ? -1 : 1))) as Record<string, string>;

/**
 * The claim a file is checked against, once its signature verified with a trusted key (null, with
 * why, when it did not): a live verify asks for it before it reads, so that nothing unsigned says
 * how much to read.
 */
export function claimOf(o: Pick<VerifyOptions, 'statement' | 'checkpoint' | 'trust'>): {
  claim: ExportStatement | null;
  fingerprint: string | null;
  findings: string[];
  unknowns: string[];
} {
  const findings: string[] = [];
  const unknowns: string[] = [];
  const none = { claim: null, fingerprint: null, findings, unknowns };
  const signed = o.statement ?? o.checkpoint;
  if (!signed) {
    findings.push(
      'no signed statement: nothing the appliance signed says what this file holds, so it cannot be proven ' +
        'complete (a cut or a forged file would look the same)',
    );
    return none;
  }
  const what = o.statement ? "the export's signed statement" : "the export's checkpoint";
  const fingerprint = signed.key_fingerprint;
  const problem = keyProblem(fingerprint, o.trust);
  if (problem === 'no keys') {
    unknowns.push(`no public key to check ${what} with: give the appliance's key (--key)`);
    return none;
  }
  if (problem) {
    findings.push(`${what} ${problem}`);
    return none;
  }
  const key = o.trust.keys.get(fingerprint)!;
  const valid = o.statement ? statementSignatureValid(o.statement, key) : checkpointSignatureValid(o.checkpoint!, key);
  if (!valid) {
    findings.push(
      `${what}'s signature does not verify with key ${displayFingerprint(fingerprint)}: it was changed after signing`,
    );
    return none;
  }
  return {
    claim: o.statement ? o.statement.statement : wholeTrailClaim(o.checkpoint!, 'jsonl'),
    fingerprint,
    findings,
    unknowns,
  };
}

/** Why `fingerprint` is not a key `trust` holds ('no keys' when it holds none at all), or null. */
function keyProblem(fingerprint: string, trust: Trust): string | null {
  if (trust.keys.has(fingerprint)) return null;
  if (trust.keys.size === 0) return 'no keys';
  const held = [...trust.keys.keys()].map(displayFingerprint).join(', ');
  return trust.pinned
    ? `is signed by key ${displayFingerprint(fingerprint)}, not ${trust.source} (${held}); if the appliance's key ` +
        'was rotated, check the new one out of band and pin it'
    : `is signed by key ${displayFingerprint(fingerprint)}, which is not among ${trust.source} (${held})`;
}

function keptSignatureFindings(kept: Checkpoint, trust: Trust, findings: string[], unknowns: string[]): void {
  const problem = keyProblem(kept.key_fingerprint, trust);
  if (problem === 'no keys') {
    unknowns.push(`no public key to check the kept checkpoint #${n(kept.seq)} with: give the appliance's key (--key)`);
    return;
  }
  if (problem === null && checkpointSignatureValid(kept, trust.keys.get(kept.key_fingerprint)!)) return;
  findings.push(
    problem && problem !== 'no keys'
      ? `the kept checkpoint #${n(kept.seq)} ${problem}`
      : `the kept checkpoint #${n(kept.seq)} is not signed by ${trust.source}: it was edited, or kept from another appliance`,
  );
}

function sinceFindings(
  kept: Checkpoint,
  claim: ExportStatement,
  sinceHash: unknown,
  findings: string[],
  unknowns: string[],
): void {
  const head = claim.head;
  if (kept.seq === head.seq) {
    if (kept.hash !== head.hash)
      findings.push(
        `entry #${n(kept.seq)} is no longer what the kept checkpoint recorded: the trail was rewritten since`,
      );
    return;
  }
  if (kept.seq > head.seq) {
    // the export's own head is older than the kept one: exported before, nothing says the trail was cut
    if (Date.parse(claim.at) < Date.parse(kept.at))
      unknowns.push(
        `the file predates the kept checkpoint: it was exported at #${n(head.seq)} (${claim.at}), before the kept ` +
          `checkpoint #${n(kept.seq)} (${kept.at}), so it cannot show it; export the trail again`,
      );
    else
      findings.push(
        `the appliance's head is #${n(head.seq)} (${claim.at}), but it signed #${n(kept.seq)} earlier ` +
          `(${kept.at}, the kept checkpoint): the trail was cut since`,
      );
    return;
  }
  if (sinceHash === undefined) {
    unknowns.push(
      `the kept checkpoint's entry #${n(kept.seq)} is not in this export, so it could not be compared (export a ` +
        'range that holds it, or the whole trail)',
    );
    return;
  }
  if (sinceHash !== kept.hash)
    findings.push(
      `entry #${n(kept.seq)} is no longer what the kept checkpoint recorded: the trail was rewritten since`,
    );
}

function scopeNotes(claim: ExportStatement, scope: ReturnType<typeof scopeOf>): string[] {
  if (scope.kind === 'run' && claim.first_seq !== null) {
    const before = claim.first_seq > 1 ? [`before #${n(claim.first_seq)}`] : [];
    const after = scope.end && (claim.last_seq ?? 0) < claim.head.seq ? [`after #${n(claim.last_seq ?? 0)}`] : [];
    const outside = [...before, ...after];
    return outside.length
      ? [`a time range: whether entries ${outside.join(' or ')} were removed is not part of this export`]
      : [];
  }
  if (scope.kind === 'selection' && Object.keys(claim.filters).every((f) => TIME_FILTERS.has(f)))
    return [
      'a time range the appliance could not sign as a run of the trail (its clock stepped back inside it): its ' +
        'entries are checked as a selection, against the signed digest; verify the whole trail to see around them',
    ];
  if (scope.kind === 'selection')
    return [
      'a filtered export: the entries between those selected are not in it, so it cannot show the trail around ' +
        'them complete; verify the whole trail (or a time range) for that',
    ];
  return [];
}

function provenWords(claim: ExportStatement, trust: Trust, signer: { fingerprint: string | null }): string {
  const scope = scopeOf(claim);
  const range =
    claim.first_seq === null
      ? ''
      : `#${n(claim.first_seq)}–#${n(claim.last_seq ?? claim.first_seq)} (${n(claim.count)})`;
  const what =
    claim.count === 0
      ? `no entries: the appliance signed that none matched (filters: ${filterWords(claim.filters)})`
      : scope.kind === 'whole'
        ? `the whole trail, entries ${range}, complete and unaltered`
        : scope.kind === 'run'
          ? `every entry from ${scope.start ?? 'the start'} to ${scope.end ?? `the head (#${n(claim.head.seq)})`}, ` +
            `entries ${range}, complete and unaltered`
          : `the ${n(claim.count)} entries the appliance selected up to #${n(claim.head.seq)} ` +
            `(filters: ${filterWords(claim.filters)}), all present and unaltered`;
  const by = signer.fingerprint ? displayFingerprint(signer.fingerprint) : '?';
  return `${what}; signed by key ${by}, ${trust.pinned ? `${trust.source}` : `${trust.source}, not pinned`}`;
}

/** Why the entry's hash does not recompute or its line is not canonical, or null when it verifies. */
function hashProblem(e: AuditEntryLike): string | null {
  if (e[HASHED_AS_READ]) return null;
  const stated = e.hash;
  if (typeof stated !== 'string') return 'it has no hash';
  try {
    const readings = [e, ...(e[OTHER_READINGS]?.() ?? [])];
    const reading = readings.find((r) => entryHash(r) === stated);
    if (!reading) return 'hash does not match its contents';
    return e[NOT_CANONICAL]?.(reading) ?? null;
  } catch (err) {
    return `cannot be hashed: ${(err as Error).message}`;
  }
}
