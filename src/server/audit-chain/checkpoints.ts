import { createPublicKey } from 'node:crypto';
import { CHAIN_REFUSED_CODE } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { ApiError } from '../errors.js';
import { iso } from '../ids.js';
import { checkpointSignatureValid, signCheckpoint, type Checkpoint } from '../../audit-chain/checkpoint.js';
import { readHead, type ChainHead } from './chain.js';
import { chainProblem, ChainRefused } from './extends.js';
import { chainHealth, recordFailure, recordRefusal, recordSigned } from './health.js';
import { currentFingerprint, loadSigningKey, type SigningKey } from './keys.js';
import { lastSigned, rememberSigned } from './signed-head.js';
import {
  CHECKPOINT_COLUMNS,
  servedCheckpoint,
  signTreeNote,
  type CheckpointRow,
  type ServedCheckpoint,
} from './checkpoint-note.js';

export type { Checkpoint };

/** A checkpoint at least every this many entries… */
export const CHECKPOINT_EVERY_ENTRIES = 1000;
/** …and, when entries were added since the last one, at least this often. */
export const CHECKPOINT_EVERY_MS = 10 * 60_000;

/**
 * Entries that change nothing an auditor exports for: an export's own entry, and the minute counts of
 * requests refused as unauthenticated or over their caller's rate. An export finds the trail "as it
 * was" at the newest checkpoint when only these came after it (signHead, with `reuse`).
 */
const EXPORT_REUSES_OVER = ['audit.export', 'journal.export', 'auth.refused', 'rate.limited'] as const;

/** A checkpoint with the key that signed it (not enumerable: never served), and whether it was signed just now. */
export type SignedHead = ServedCheckpoint & { key: SigningKey; reused: boolean };
/**
 * Whether an export may take the newest checkpoint rather than sign the head: true, or asked with
 * that checkpoint's seq (an export whose filters select an entry written since must not end before it).
 */
export type Reuse = boolean | ((afterSeq: number) => boolean);

interface Signer {
  dataDir: string;
  key: SigningKey;
}
const signers = new WeakMap<Db, Signer>();

/** Lets this database's writers sign checkpoints with the data directory's key (the server does, at start). */
export function attachSigner(db: Db, dataDir: string, key: SigningKey): void {
  signers.set(db, { dataDir, key });
}

/**
 * The key to sign with: the one in memory, unless `audit rotate-key` replaced it on the host
 * meanwhile (the database names another current key), then the data directory's new one.
 */
function signingKey(db: Db, s: Signer): SigningKey {
  if (currentFingerprint(db) !== s.key.fingerprint) s.key = loadSigningKey(db, s.dataDir).key;
  return s.key;
}

/**
 * Signs the trail's head, after checking that the trail still extends the last checkpoint this
 * appliance signed (kept beside the key, outside the table: signed-head.ts): every entry since it
 * recomputes and links. A head that does not extend it is never signed (ChainRefused): a trail
 * rewritten in the database must not be vouched for. Call inside a write transaction.
 *
 * With `reuse` (an export), the newest checkpoint is taken instead when it is the last one this
 * appliance signed, with its current key, and nothing but EXPORT_REUSES_OVER entries came after it:
 * the same check of the trail runs, nothing is signed, and nothing unsigned is vouched for (the export
 * ends at that checkpoint).
 */
function signHead(db: Db, s: Signer, atMs: number, reuse: Reuse = false): SignedHead {
  const key = signingKey(db, s);
  const head = readHead(db);
  const base = lastSigned(db, s.dataDir, key);
  const problem = chainProblem(db, base, head);
  if (problem) throw new ChainRefused(base, problem);
  const withKey = (c: ServedCheckpoint, reused = false) =>
    Object.defineProperties(
      { ...c },
      { key: { value: key, enumerable: false }, reused: { value: reused, enumerable: false } },
    ) as SignedHead;
  if (reuse) {
    const newest = newestCheckpoint(db);
    if (
      newest &&
      newest.seq === base.seq &&
      newest.hash === base.hash &&
      newest.key_fingerprint === key.fingerprint &&
      onlyUnchangingAfter(db, newest.seq) &&
      (reuse === true || reuse(newest.seq)) &&
      checkpointSignatureValid(newest, createPublicKey(key.privateKey))
    ) {
      recordSigned(db);
      return withKey(newest, true);
    }
  }
  // the head signed already (an export's entry that was also the 1,000th): one checkpoint a head,
  // unless that one was signed before the tree (then the head is signed again, with its note)
  const signed = db
    .prepare(
      `SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints
       WHERE seq = ? AND hash = ? AND key_fingerprint = ? AND note IS NOT NULL ORDER BY id DESC LIMIT 1`,
    )
    .get(head.seq, head.hash, key.fingerprint) as CheckpointRow | undefined;
  if (signed) {
    recordSigned(db);
    return withKey(servedCheckpoint(db, signed));
  }
  const c = signCheckpoint(head, iso(atMs), key);
  const tree = signTreeNote(db, c, key.privateKey);
  const id = db
    .prepare(
      `INSERT INTO audit_checkpoints (seq, hash, at, at_ms, signature, key_fingerprint, origin, tree_size, root_hash, note)
       VALUES (@seq, @hash, @at, @at_ms, @signature, @key_fingerprint, @origin, @tree_size, @root_hash, @note)`,
    )
    .run({ ...c, ...tree, at_ms: atMs }).lastInsertRowid;
  rememberSigned(db, s.dataDir, c, id);
  recordSigned(db);
  return withKey({ ...c, ...tree });
}

const newestCheckpoint = (db: Db): ServedCheckpoint | undefined => {
  const row = db
    .prepare(`SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints ORDER BY seq DESC, id DESC LIMIT 1`)
    .get() as CheckpointRow | undefined;
  return row && servedCheckpoint(db, row);
};

/** Whether every entry after `seq` is one of EXPORT_REUSES_OVER (fewer than CHECKPOINT_EVERY_ENTRIES are read). */
const onlyUnchangingAfter = (db: Db, seq: number) =>
  db
    .prepare(
      `SELECT NOT EXISTS (SELECT 1 FROM audit WHERE seq > ? AND action NOT IN (${EXPORT_REUSES_OVER.map(() => '?').join(', ')}))`,
    )
    .pluck()
    .get(seq, ...EXPORT_REUSES_OVER) === 1;

/**
 * A checkpoint of the trail's head now (an export's, a seal's), inside its transaction, with the key
 * that signed it (not enumerable: never served) for the export's statement; with `reuse`, the newest
 * checkpoint when nothing an export covers was written since it (signHead). Throws ChainRefused when
 * the trail does not extend the last signed checkpoint, or the error that kept it from being signed
 * (both recorded for the deployment status).
 */
function checkpointHead(db: Db, reuse: Reuse): SignedHead {
  const s = signers.get(db);
  if (!s) throw new Error('no audit signing key is attached to this database');
  try {
    return signHead(db, s, Date.now(), reuse);
  } catch (err) {
    if (err instanceof ChainRefused) recordRefusal(db, err);
    else recordFailure(db, err);
    throw err;
  }
}

/**
 * checkpointHead for a route that answers with it (an export, with `reuse`; a seal, which signs its own
 * entry): a trail the signer refuses is the answer 500 SVC-AUDIT-CHAIN with the finding, which
 * verifiers read as the trail broken.
 */
export function checkpointHeadOrRefuse(db: Db, o: { reuse?: Reuse } = {}): SignedHead {
  try {
    return checkpointHead(db, o.reuse ?? false);
  } catch (err) {
    if (err instanceof ChainRefused)
      throw new ApiError(500, `the appliance will not sign its audit trail: ${err.message}`, {
        code: CHAIN_REFUSED_CODE,
      });
    throw err;
  }
}

const lastCheckpoint = (db: Db) =>
  db.prepare('SELECT seq, at_ms FROM audit_checkpoints ORDER BY seq DESC, id DESC LIMIT 1').get() as
    { seq: number; at_ms: number } | undefined;

/**
 * After a write, in its transaction: a checkpoint when CHECKPOINT_EVERY_ENTRIES entries were added
 * since the last. It never fails the write: a checkpoint that cannot be signed now (a key the server
 * cannot read, a trail that does not extend the last signed one) is recorded for the deployment
 * status and tried again by the timer; the mutation and its entry stand. The one exception is an
 * error after which SQLite has already rolled the write's transaction back (a full disk): then the
 * write fails with it, whole, rather than going on outside a transaction.
 */
export function checkpointIfDue(db: Db, head: ChainHead): void {
  const s = signers.get(db);
  if (!s || head.seq - (lastCheckpoint(db)?.seq ?? 0) < CHECKPOINT_EVERY_ENTRIES) return;
  trySigning(db, s, Date.now());
}

function trySigning(db: Db, s: Signer, atMs: number): Checkpoint | null {
  const inTransaction = db.inTransaction;
  try {
    // a savepoint: a failure leaves the caller's transaction as it was…
    return db.transaction(() => signHead(db, s, atMs))();
  } catch (err) {
    if (err instanceof ChainRefused) recordRefusal(db, err);
    else recordFailure(db, err);
    // …except where SQLite rolled all of it back (SQLITE_FULL, SQLITE_IOERR): the caller's writes
    // are gone, and what it wrote next would be outside any transaction (a bulk insert's next
    // entries linked to a head that no longer exists). It fails with the cause.
    if (inTransaction && !db.inTransaction) throw err;
    return null;
  }
}

/**
 * On a timer: a checkpoint when entries were added since the last one and it is CHECKPOINT_EVERY_MS
 * old, or when the last attempt failed (retried at every tick). Never throws: the timer must not
 * take the server down (a key it cannot read, SQLITE_FULL).
 */
export function checkpointIfStale(db: Db, nowMs = Date.now()): Checkpoint | null {
  try {
    const s = signers.get(db);
    if (!s) return null;
    const last = lastCheckpoint(db);
    const head = readHead(db);
    const retry = chainHealth(db).state !== 'ok';
    if (head.seq === 0 || (last && (head.seq <= last.seq || (!retry && nowMs - last.at_ms < CHECKPOINT_EVERY_MS))))
      return null;
    return db.transaction(() => trySigning(db, s, nowMs)).immediate();
  } catch (err) {
    recordFailure(db, err);
    return null;
  }
}

/**
 * At start: a checkpoint with its tree and note when the trail has entries and the newest checkpoint
 * was signed before the tree existed, or none was (the first start after an upgrade), so that proofs
 * have a signed root to go by at once. It may sign the same head again. Never throws, as the timer's.
 */
export function checkpointIfNoNote(db: Db): Checkpoint | null {
  try {
    const s = signers.get(db);
    const newest = newestCheckpoint(db);
    if (!s || (newest ? newest.note !== null : readHead(db).seq === 0)) return null;
    return db.transaction(() => trySigning(db, s, Date.now())).immediate();
  } catch (err) {
    recordFailure(db, err);
    return null;
  }
}

/** Signs the head with `key` right after a rotation (the host CLI), checked as every signature is. */
export function checkpointAfterRotation(db: Db, dataDir: string, key: SigningKey): Checkpoint {
  return signHead(db, { dataDir, key }, Date.now());
}
