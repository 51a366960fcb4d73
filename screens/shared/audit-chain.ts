/**
 * The audit chain's state as the dashboard sees it (docs/audit-chain.md): each page of entries it
 * reads and the newest signed checkpoint, checked with the offline verifier's own functions.
 */
import {
  asCheckpoint,
  keyFingerprint,
  readPublicKey,
  showFingerprint,
  signatureValid,
  type Checkpoint,
} from '../../src/audit-verify/checkpoint.js';
import { hashEntry } from '../../src/audit-verify/entry-hash.js';
import { shortTime } from '../../src/ui/format.js';

/** A check of what was read: what it covers, or the first break found. */
export type ChainCheck =
  | { ok: true; firstSeq: number | null; lastSeq: number | null; checkpoint: CheckedCheckpoint | null }
  | { ok: false; seq: number | null; finding: string };

interface CheckedCheckpoint {
  checkpoint: Checkpoint;
  fingerprint: string;
}

/** The last whole-trail verify (`V`), kept in the audit screen's state so that its header says it. */
export interface TrailVerified {
  ok: boolean;
  lastSeq: number;
  at: number;
  /** the verifier's first finding, when it failed */
  finding?: string;
}

const n = (v: number) => v.toLocaleString('en-US');
const seqOf = (e: Record<string, unknown>): number | null =>
  Number.isSafeInteger(e.seq) && (e.seq as number) >= 1 ? (e.seq as number) : null;

/**
 * Checks a page of entries (any order) and the newest checkpoint list answer: every entry's hash
 * recomputes, entries N and N-1 both on the page link by prev_hash, the checkpoint's signature
 * verifies with the served key of its fingerprint, and its hash is that of its entry when the
 * entry is on the page. `checkpoints` undefined: not read (yet); it is then not named.
 */
export function checkChain(entries: unknown[], checkpoints?: unknown): ChainCheck {
  const bySeq = new Map<number, Record<string, unknown>>();
  for (const raw of entries) {
    if (raw === null || typeof raw !== 'object') continue;
    const e = raw as Record<string, unknown>;
    const seq = seqOf(e);
    if (seq === null) return { ok: false, seq: null, finding: `entry ${String(e.id)} has no valid seq` };
    bySeq.set(seq, e);
  }
  const seqs = [...bySeq.keys()].sort((a, b) => a - b);
  for (const seq of seqs) {
    const e = bySeq.get(seq)!;
    const why = hashProblem(e);
    if (why) return { ok: false, seq, finding: why };
    const before = bySeq.get(seq - 1);
    if (before && e.prev_hash !== before.hash)
      return { ok: false, seq, finding: `its prev_hash does not link to #${n(seq - 1)}` };
  }
  let checked: CheckedCheckpoint | null = null;
  if (checkpoints !== undefined) {
    const c = checkCheckpoint(checkpoints, bySeq);
    if (c && 'finding' in c) return c;
    checked = c;
  }
  return { ok: true, firstSeq: seqs[0] ?? null, lastSeq: seqs.at(-1) ?? null, checkpoint: checked };
}

function hashProblem(e: Record<string, unknown>): string | null {
  if (typeof e.hash !== 'string') return 'it has no hash';
  try {
    return hashEntry(e) === e.hash ? null : 'its hash does not match its contents (the entry was altered)';
  } catch (err) {
    return `it cannot be hashed: ${(err as Error).message}`;
  }
}

function checkCheckpoint(
  list: unknown,
  bySeq: Map<number, Record<string, unknown>>,
): CheckedCheckpoint | Extract<ChainCheck, { ok: false }> | null {
  const body = (list ?? {}) as { data?: unknown; public_keys?: unknown };
  const newest = Array.isArray(body.data) ? body.data[0] : undefined;
  if (newest === undefined) return null;
  const c = asCheckpoint(newest);
  if (typeof c === 'string') return { ok: false, seq: null, finding: `the newest checkpoint is unusable: ${c}` };
  const broken = (finding: string) => ({ ok: false as const, seq: c.seq, finding });
  const pem = servedKey(Array.isArray(body.public_keys) ? body.public_keys : [], c.key_fingerprint);
  if (pem === undefined)
    return broken(`the appliance serves no public key ${showFingerprint(c.key_fingerprint)} for its checkpoint`);
  const key = readPublicKey(pem);
  if (typeof key === 'string' || !signatureValid(c, key))
    return broken(`the checkpoint's signature does not verify with key ${showFingerprint(c.key_fingerprint)}`);
  const entry = bySeq.get(c.seq);
  if (entry && entry.hash !== c.hash) return broken('the entry is not what the signed checkpoint recorded');
  return { checkpoint: c, fingerprint: c.key_fingerprint };
}

/**
 * A served PEM whole again: the dashboard's client makes every served string one line
 * (src/text/sanitize.ts), so the PEM is built again from its base64 body; '' when it has none.
 */
export function wholePem(served: string): string {
  const body = PEM_BODY.exec(served)?.[1].replace(/\s+/g, '');
  return body ? `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----\n` : '';
}
const PEM_BODY = /-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----/;

/** The served key whose own fingerprint (computed, not the one served beside it) is `fingerprint`, as PEM. */
export function servedKey(keys: unknown[], fingerprint: string): string | undefined {
  for (const k of keys) {
    const served = (k as { public_key_pem?: unknown } | null)?.public_key_pem;
    const pem = typeof served === 'string' ? wholePem(served) : '';
    const key = pem ? readPublicKey(pem) : 'none';
    if (typeof key !== 'string' && keyFingerprint(key) === fingerprint) return pem;
  }
  return undefined;
}

/** "2 min ago", as the header says an age. */
function ago(ms: number, nowMs: number): string {
  const s = Math.max(0, Math.round((nowMs - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `on ${shortTime(new Date(ms).toISOString())}`;
}

/**
 * The words of the audit screen's header and the overview's line: "CHAIN BROKEN at #N: …" (it
 * says so without colour), or what was checked and the newest checkpoint.
 */
export function chainText(check: ChainCheck, verified: TrailVerified | null, nowMs: number): string {
  if (!check.ok) return `CHAIN BROKEN${check.seq === null ? '' : ` at #${n(check.seq)}`}: ${check.finding}`;
  if (verified && !verified.ok) {
    const at = /#([\d,]+)/.exec(verified.finding ?? '')?.[1];
    return `CHAIN BROKEN${at ? ` at #${at}` : ''}: ${verified.finding ?? 'the whole-trail verify failed'} (V)`;
  }
  const parts: string[] = [];
  if (verified) parts.push(`chain verified to #${n(verified.lastSeq)} (${ago(verified.at, nowMs)})`);
  else if (check.firstSeq !== null)
    parts.push(`chain: this page checks out (#${n(check.firstSeq)}–#${n(check.lastSeq!)})`);
  if (check.checkpoint) {
    const c = check.checkpoint.checkpoint;
    const at = Date.parse(c.at);
    parts.push(
      `checkpoint #${n(c.seq)} signed ${Number.isNaN(at) ? c.at : ago(at, nowMs)} by ` +
        `${showFingerprint(check.checkpoint.fingerprint)}…`,
    );
  }
  return parts.join(' · ');
}
