import { sign } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Db } from '../db/open.js';
import { iso } from '../ids.js';
import { readHead, type ChainHead } from './chain.js';
import { currentFingerprint, loadSigningKey, type SigningKey } from './keys.js';

/** The appliance's signed statement of the trail's head (docs/audit-chain.md). */
export interface Checkpoint {
  seq: number;
  hash: string;
  at: string;
  signature: string;
  key_fingerprint: string;
}

/** A checkpoint at least every this many entries… */
export const CHECKPOINT_EVERY_ENTRIES = 1000;
/** …and, when entries were added since the last one, at least this often. */
export const CHECKPOINT_EVERY_MS = 10 * 60_000;

const signers = new WeakMap<Db, { dataDir: string; key: SigningKey }>();

/** Lets this database's writers sign checkpoints with the data directory's key (the server does, at start). */
export function attachSigner(db: Db, dataDir: string, key: SigningKey): void {
  signers.set(db, { dataDir, key });
}

/**
 * The key to sign with: the one in memory, unless `audit rotate-key` replaced it on the host
 * meanwhile (the database names another current key), then the data directory's new one.
 */
function signingKey(db: Db): SigningKey | null {
  const s = signers.get(db);
  if (!s) return null;
  if (currentFingerprint(db) !== s.key.fingerprint) s.key = loadSigningKey(db, s.dataDir).key;
  return s.key;
}

/** The bytes signed: the JCS canonical JSON of {at, hash, seq}, UTF-8. */
const checkpointPayload = (c: { seq: number; hash: string; at: string }): Buffer =>
  Buffer.from(canonicalize({ at: c.at, hash: c.hash, seq: c.seq })!, 'utf8');

/** Signs `head` with `key` and stores the checkpoint. */
export function writeCheckpoint(db: Db, key: SigningKey, head: ChainHead, atMs = Date.now()): Checkpoint {
  const at = iso(atMs);
  const signature = sign(null, checkpointPayload({ at, hash: head.hash, seq: head.seq }), key.privateKey).toString(
    'base64',
  );
  const c: Checkpoint = { seq: head.seq, hash: head.hash, at, signature, key_fingerprint: key.fingerprint };
  db.prepare(
    'INSERT INTO audit_checkpoints (seq, hash, at, at_ms, signature, key_fingerprint) VALUES (@seq, @hash, @at, @at_ms, @signature, @key_fingerprint)',
  ).run({ ...c, at_ms: atMs });
  return c;
}

/** A checkpoint of the trail's head now (an export's); null when the trail is empty or no key is attached. */
export function checkpointHead(db: Db): Checkpoint | null {
  const key = signingKey(db);
  const head = readHead(db);
  return key && head.seq > 0 ? writeCheckpoint(db, key, head) : null;
}

const lastCheckpoint = (db: Db) =>
  db.prepare('SELECT seq, at_ms FROM audit_checkpoints ORDER BY seq DESC, id DESC LIMIT 1').get() as
    { seq: number; at_ms: number } | undefined;

/** After a write: a checkpoint when CHECKPOINT_EVERY_ENTRIES entries were added since the last. */
export function checkpointIfDue(db: Db, head: ChainHead): void {
  if (!signers.has(db) || head.seq - (lastCheckpoint(db)?.seq ?? 0) < CHECKPOINT_EVERY_ENTRIES) return;
  const key = signingKey(db);
  if (key) writeCheckpoint(db, key, head);
}

/** On a timer: a checkpoint when entries were added since the last one and it is CHECKPOINT_EVERY_MS old. */
export function checkpointIfStale(db: Db, nowMs = Date.now()): Checkpoint | null {
  const last = lastCheckpoint(db);
  const head = readHead(db);
  if (head.seq === 0 || (last && (head.seq <= last.seq || nowMs - last.at_ms < CHECKPOINT_EVERY_MS))) return null;
  const key = signingKey(db);
  return key && db.transaction(() => writeCheckpoint(db, key, readHead(db), nowMs)).immediate();
}
