/**
 * The checks behind screens/shared/audit-chain.ts, with the verifier's own functions. They need
 * node:crypto, which the dashboard does not load for its first frame: this module is loaded on
 * first use (loadChainCheck there).
 */
import {
  asCheckpoint,
  keyFingerprint,
  readPublicKey,
  showFingerprint,
  signatureValid,
} from '../../src/audit-verify/checkpoint.js';
import { hashEntry } from '../../src/audit-verify/entry-hash.js';
import type { ChainCheck, CheckedCheckpoint } from './audit-chain.js';

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
  // drawn on every frame: the answer (a new array for each new page) is checked once
  const kept = checks.get(entries);
  if (kept && kept.checkpoints === checkpoints) return kept.result;
  const result = checkOnce(entries.length > MAX_CHECKED ? entries.slice(0, MAX_CHECKED) : entries, checkpoints);
  checks.set(entries, { checkpoints, result });
  return result;
}

/** A page is at most 500 entries; a longer list (a test's, a benchmark's) is checked on its newest ones. */
const MAX_CHECKED = 1000;
const checks = new WeakMap<unknown[], { checkpoints: unknown; result: ChainCheck }>();

function checkOnce(entries: unknown[], checkpoints?: unknown): ChainCheck {
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
