/**
 * The checks behind screens/shared/audit-chain.ts, with the verifier's own functions. They need
 * node:crypto, which the dashboard does not load for its first frame: this module is loaded on
 * first use (loadChainCheck there).
 */
import { asCheckpoint, readPublicKey, showFingerprint, signatureValid } from '../../src/audit-verify/checkpoint.js';
import { hashEntry } from '../../src/audit-verify/entry-hash.js';
import { servedKeys } from '../../src/audit-verify/served-checkpoints.js';
import type { ChainCheck, CheckedCheckpoint } from './audit-chain.js';
import { keptFinding, memoryFinding, moveKept } from './audit-chain-kept.js';
import { memoryChanges, memoryOf } from './audit-chain-memory.js';
import { thousands } from '../../src/text/thousands.js';

const n = thousands;
const seqOf = (e: Record<string, unknown>): number | null =>
  Number.isSafeInteger(e.seq) && (e.seq as number) >= 1 ? (e.seq as number) : null;
type Broken = Extract<ChainCheck, { ok: false }>;

/**
 * Checks a page of entries (any order) and the newest checkpoint list answer: every entry's hash
 * recomputes, entries N and N-1 both on the page link by prev_hash, the checkpoint's signature
 * verifies with the served key of its fingerprint, and its hash is that of its entry when the
 * entry is on the page. `whole`: the page is the unfiltered trail (no filter, no search), so
 * entries missing between its rows are found too (gapOf). `checkpoints` undefined: not read
 * (yet); it is then not named. With the checkpoints, what the dashboard kept of this appliance's
 * chain (audit-chain-memory.ts) is compared too.
 */
export function checkChain(entries: unknown[], checkpoints?: unknown, o: { whole?: boolean } = {}): ChainCheck {
  // drawn on every frame: the answer (a new array for each new page) is checked once
  const whole = o.whole ?? false;
  const cached = checks.get(entries);
  const changes = memoryChanges();
  if (cached && cached.checkpoints === checkpoints && cached.whole === whole && cached.changes === changes)
    return cached.result;
  const result = checkOnce(entries.length > MAX_CHECKED ? entries.slice(0, MAX_CHECKED) : entries, checkpoints, whole);
  // a check may keep a checkpoint (a change): what it found stands for the memory after it
  checks.set(entries, { checkpoints, whole, changes: memoryChanges(), result });
  return result;
}

/** A page is at most 500 entries; a longer list (a test's, a benchmark's) is checked on its newest ones. */
const MAX_CHECKED = 1000;
const checks = new WeakMap<unknown[], { checkpoints: unknown; whole: boolean; changes: number; result: ChainCheck }>();

function checkOnce(entries: unknown[], checkpoints: unknown, whole: boolean): ChainCheck {
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
  const gap = whole ? gapOf(bySeq) : null;
  if (gap) return gap;
  let checked: CheckedCheckpoint | null = null;
  let verified = null;
  if (checkpoints !== undefined) {
    const c = checkCheckpoint(checkpoints, bySeq);
    if (c && 'finding' in c) return c;
    checked = c;
    const memory = memoryOf([...dashboardKeys(keysOf(checkpoints)).keys()]);
    const found = keptFinding(memory.kept, checked?.checkpoint ?? null, bySeq) ?? memoryFinding(memory.verified);
    if (found) return found;
    if (checked) moveKept(memory, checked.checkpoint, bySeq);
    verified = memory.verified;
  }
  return { ok: true, firstSeq: seqs[0] ?? null, lastSeq: seqs.at(-1) ?? null, checkpoint: checked, whole, verified };
}

/**
 * Entries missing between the rows of an unfiltered page. The list is in time order, and the
 * appliance writes seq in time order, so rows next to each other in time are next to each other
 * in seq: a seq that jumps between two of them is entries removed. Where the page's seq does not
 * follow its time (a clock stepped back, a trail seeded out of order), the page proves nothing
 * about gaps and none is reported: a false break is worse than a missed one, which V still finds.
 */
function gapOf(bySeq: Map<number, Record<string, unknown>>): Broken | null {
  const rows = [...bySeq].map(([seq, e]) => ({ seq, t: Date.parse(String(e.at)) }));
  if (rows.some((r) => Number.isNaN(r.t))) return null;
  rows.sort((a, b) => a.t - b.t || a.seq - b.seq);
  for (let i = 1; i < rows.length; i++) if (rows[i].seq < rows[i - 1].seq) return null;
  for (let i = 1; i < rows.length; i++) {
    const [from, to] = [rows[i - 1].seq + 1, rows[i].seq - 1];
    if (to < from) continue;
    const missing =
      from === to ? `entry #${n(from)} missing` : `entries #${n(from)}–#${n(to)} missing (${n(to - from + 1)})`;
    return { ok: false, seq: from, finding: `${missing}: #${n(to + 1)} follows #${n(from - 1)} in time` };
  }
  return null;
}

function hashProblem(e: Record<string, unknown>): string | null {
  if (typeof e.hash !== 'string') return 'it has no hash';
  try {
    return hashEntry(e) === e.hash ? null : 'its hash does not match its contents (the entry was altered)';
  } catch (err) {
    return `it cannot be hashed: ${(err as Error).message}`;
  }
}

const keysOf = (list: unknown): unknown[] => {
  const keys = (list as { public_keys?: unknown } | null)?.public_keys;
  return Array.isArray(keys) ? keys : [];
};

function checkCheckpoint(
  list: unknown,
  bySeq: Map<number, Record<string, unknown>>,
): CheckedCheckpoint | Broken | null {
  const body = (list ?? {}) as { data?: unknown };
  const newest = Array.isArray(body.data) ? body.data[0] : undefined;
  if (newest === undefined) return null;
  const c = asCheckpoint(newest);
  if (typeof c === 'string') return { ok: false, seq: null, finding: `the newest checkpoint is unusable: ${c}` };
  const broken = (finding: string) => ({ ok: false as const, seq: c.seq, finding });
  const pem = servedKey(keysOf(list), c.key_fingerprint);
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

/** The served keys (GET /audit/checkpoints `public_keys`) by their own fingerprint, each PEM whole again. */
export function dashboardKeys(keys: unknown[]): Map<string, string> {
  return servedKeys(
    keys.flatMap((k) => {
      const served = (k as { public_key_pem?: unknown } | null)?.public_key_pem;
      const pem = typeof served === 'string' ? wholePem(served) : '';
      // no PEM, no key: not parsed, as that fails slowly (10,000 of them took 5 s, on every frame of the overview)
      return pem ? [{ public_key_pem: pem }] : [];
    }),
  );
}

/** The served key whose own fingerprint (computed, not the one served beside it) is `fingerprint`, as PEM. */
const servedKey = (keys: unknown[], fingerprint: string): string | undefined => dashboardKeys(keys).get(fingerprint);
