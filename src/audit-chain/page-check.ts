/**
 * The dashboard's check of what it reads of the trail (docs/audit-chain.md, "What the dashboard
 * checks"), with the verifier's own functions, on the answers as they came off the wire (never the
 * sanitized text it shows). It needs node:crypto, which the dashboard does not load for its first
 * frame: loaded on first use (src/dashboard/audit-trail/audit-chain.ts, loadChainCheck).
 */
import type { KeyObject } from 'node:crypto';
import { displayFingerprint } from '../text/fingerprint.js';
import { thousands } from '../text/thousands.js';
import { entryHash } from './canonical.js';
import type { ChainCheck, CheckedCheckpoint } from './chain-state.js';
import { asCheckpoint, checkpointSignatureValid, keysByFingerprint } from './checkpoint.js';
import { keptFinding, memoryFinding, moveKept } from './kept.js';
import { memoryChanges, memoryOf } from './memory.js';
import { pinnedKeysOf } from './pinned-keys.js';
import { asTreeCheckpoint } from './tree-checkpoint.js';

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
 * chain (memory.ts) is compared too. `pinnedPem`: the audit key file pinned for this appliance
 * (one or more PEM keys, keys-file.ts): the checkpoint must verify with one of them, not with a
 * key the appliance serves.
 */
export function checkChain(
  entries: unknown[],
  checkpoints?: unknown,
  o: { whole?: boolean; pinnedPem?: string } = {},
): ChainCheck {
  // drawn on every frame: the answer (a new array for each new page) is checked once
  const whole = o.whole ?? false;
  const pinned = o.pinnedPem ?? null;
  const cached = checks.get(entries);
  const changes = memoryChanges();
  if (
    cached &&
    cached.checkpoints === checkpoints &&
    cached.whole === whole &&
    cached.pinned === pinned &&
    cached.changes === changes
  )
    return cached.result;
  const page = entries.length > MAX_CHECKED ? entries.slice(0, MAX_CHECKED) : entries;
  const result = checkOnce(page, checkpoints, whole, pinned);
  // a check may keep a checkpoint (a change): what it found stands for the memory after it
  checks.set(entries, { checkpoints, whole, pinned, changes: memoryChanges(), result });
  return result;
}

/** A page is at most 500 entries; a longer list (a test's, a benchmark's) is checked on its newest ones. */
const MAX_CHECKED = 1000;
const checks = new WeakMap<
  unknown[],
  { checkpoints: unknown; whole: boolean; pinned: string | null; changes: number; result: ChainCheck }
>();

function checkOnce(entries: unknown[], checkpoints: unknown, whole: boolean, pinnedPem: string | null): ChainCheck {
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
  const served = servedKeys(checkpoints);
  const pinned = pinnedPem === null ? null : pinnedKeysOf(pinnedPem);
  if (typeof pinned === 'string')
    return { ok: false, seq: null, finding: `the pinned audit key file is ${pinned}`, unchecked: true };
  if (checkpoints !== undefined) {
    const c = checkCheckpoint(checkpoints, bySeq, pinned, served);
    if (c && 'finding' in c) return c;
    checked = c;
    const memory = memoryOf([...served.keys()]);
    const listedBefore = firstSeen(checkpoints) < memory.keptAt;
    const found =
      keptFinding(memory.kept, checked?.checkpoint ?? null, bySeq, listedBefore) ??
      memory.broken ??
      memoryFinding(memory.verified);
    if (found) return found;
    if (checked) moveKept(memory, checked.checkpoint, bySeq);
    verified = memory.verified;
  }
  return {
    ok: true,
    firstSeq: seqs[0] ?? null,
    lastSeq: seqs.at(-1) ?? null,
    checkpoint: checked,
    whole,
    verified,
    pinned: pinned !== null,
  };
}

/** memoryChanges() when each checkpoint list answer was first checked: whether it predates a kept checkpoint. */
const seenAt = new WeakMap<object, number>();
function firstSeen(list: unknown): number {
  if (list === null || typeof list !== 'object') return memoryChanges();
  let at = seenAt.get(list);
  if (at === undefined) seenAt.set(list, (at = memoryChanges()));
  return at;
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
    return entryHash(e) === e.hash ? null : 'its hash does not match its contents (the entry was altered)';
  } catch (err) {
    return `it cannot be hashed: ${(err as Error).message}`;
  }
}

/**
 * The served keys (GET /audit/checkpoints `public_keys`, as sent) by their own fingerprint. A list
 * that is not one reads as none; at most a few are parsed (a key a rotation retires stays listed).
 */
function servedKeys(list: unknown): Map<string, KeyObject> {
  const keys = (list as { public_keys?: unknown } | null)?.public_keys;
  return Array.isArray(keys) ? keysByFingerprint(keys, 100) : new Map();
}

function checkCheckpoint(
  list: unknown,
  bySeq: Map<number, Record<string, unknown>>,
  pinned: Map<string, KeyObject> | null,
  served: Map<string, KeyObject>,
): CheckedCheckpoint | Broken | null {
  const body = (list ?? {}) as { data?: unknown };
  const newest = Array.isArray(body.data) ? body.data[0] : undefined;
  if (newest === undefined) return null;
  const c = asCheckpoint(newest);
  if (typeof c === 'string') return { ok: false, seq: null, finding: `the newest checkpoint is unusable: ${c}` };
  const broken = (finding: string) => ({ ok: false as const, seq: c.seq, finding });
  const named = displayFingerprint(c.key_fingerprint);
  // pinned: only the keys given out of band count, as for audit verify --key
  const key = (pinned ?? served).get(c.key_fingerprint);
  if (pinned && !key)
    return broken(
      `the newest checkpoint is signed by key ${named}, not the audit key pinned for this appliance ` +
        '(if its key was rotated, check the new one out of band and pin it)',
    );
  if (!key) return broken(`the appliance serves no public key ${named} for its checkpoint`);
  if (!checkpointSignatureValid(c, key)) return broken(`the checkpoint's signature does not verify with key ${named}`);
  const entry = bySeq.get(c.seq);
  if (entry && entry.hash !== c.hash) return broken('the entry is not what the signed checkpoint recorded');
  // kept with its tree and note when it has them: the kept checkpoint moves on by a consistency proof (kept-advance.ts)
  const tree = asTreeCheckpoint(newest);
  return { checkpoint: typeof tree === 'string' ? c : tree, fingerprint: c.key_fingerprint };
}
