import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asCheckpoint, checkpointSignatureValid, type Checkpoint } from '../../audit-chain/checkpoint.js';
import { backgroundTasks } from '../background.js';
import { writeOwnedPrivateFile } from '../db/data-dir.js';
import type { Db } from '../db/sqlite-driver.js';
import { readHead, type ChainHead } from './chain.js';
import type { SigningKey } from './keys.js';

/**
 * The last checkpoint this appliance signed, kept beside its key outside the database: what the
 * signer checks the trail against before it signs again (checkpoints.ts). Someone who rewrites the
 * database (and removes its checkpoints) cannot move it; one who can write here could also take the
 * key, which no check on this host can stop.
 */
export const SIGNED_HEAD_FILE = 'audit-signed-head.json';
/** The background task (background.ts) that keeps it. */
const SIGNED_HEAD_TASK = 'audit-signed-head';

const file = (dataDir: string) => join(dataDir, SIGNED_HEAD_FILE);

function readKept(dataDir: string): Checkpoint | null {
  let text: string;
  try {
    text = readFileSync(file(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const c = asCheckpoint(JSON.parse(text));
  if (typeof c === 'string') throw new Error(`${file(dataDir)} is not a checkpoint: ${c}`);
  return c;
}

/**
 * Where the check starts: the newest of the kept checkpoint and the newest one in the table signed
 * with `key` (which only this appliance can have made, so a forger cannot move it forward). With
 * neither (a database that had no checkpoint yet, or one from before the kept file existed), the
 * newest checkpoint any listed key signed, else the head itself: taken on first use, and kept from
 * then on.
 */
export function lastSigned(db: Db, dataDir: string, key: SigningKey): ChainHead {
  const kept = readKept(dataDir);
  const mine = newestSignedBy(db, key);
  const best = [kept, mine].filter((c): c is Checkpoint => c !== null).sort((a, b) => b.seq - a.seq)[0];
  if (best) return { seq: best.seq, hash: best.hash };
  return firstUse(db);
}

function newestSignedBy(db: Db, key: SigningKey): Checkpoint | null {
  const row = db
    .prepare(
      `SELECT seq, hash, at, signature, key_fingerprint FROM audit_checkpoints WHERE key_fingerprint = ?
       ORDER BY seq DESC, id DESC LIMIT 1`,
    )
    .get(key.fingerprint) as Checkpoint | undefined;
  return row && checkpointSignatureValid(row, createPublicKey(key.privateKey)) ? row : null;
}

function firstUse(db: Db): ChainHead {
  const rows = db
    .prepare(
      'SELECT c.seq, c.hash, c.at, c.signature, c.key_fingerprint, k.public_key_pem AS pem FROM audit_checkpoints c JOIN audit_keys k ON k.fingerprint = c.key_fingerprint ORDER BY c.seq DESC, c.id DESC LIMIT 20',
    )
    .all() as (Checkpoint & { pem: string })[];
  for (const r of rows) if (checkpointSignatureValid(r, createPublicKey(r.pem))) return { seq: r.seq, hash: r.hash };
  // nothing was ever signed: there is nothing to hold the trail to, and it is taken as it is (checking it
  // from the genesis would prove nothing more, and hold the server for as long as the trail is long)
  return readHead(db);
}

/**
 * Keeps `c` as the last signed checkpoint once the transaction that stored it (row `id`) has
 * committed: a microtask runs after the caller's synchronous transaction ends, and the row is then
 * there, with this signature, only if it committed. A checkpoint rolled back with its mutation is
 * never kept. The database's write-ahead log is made durable first (a checkpoint of it syncs it):
 * with synchronous=NORMAL a commit can be lost to a power cut, and a kept checkpoint ahead of the
 * trail after a reboot would read as entries removed.
 */
export function rememberSigned(db: Db, dataDir: string, c: Checkpoint, id: number | bigint): void {
  queueMicrotask(() => {
    try {
      if (!db.open || db.inTransaction) return;
      const row = db.prepare('SELECT seq, hash, signature FROM audit_checkpoints WHERE id = ?').get(id) as
        Pick<Checkpoint, 'seq' | 'hash' | 'signature'> | undefined;
      if (!row || row.seq !== c.seq || row.hash !== c.hash || row.signature !== c.signature) return;
      const kept = readKept(dataDir);
      if (!kept || kept.seq < c.seq) {
        db.pragma('wal_checkpoint(PASSIVE)');
        writeOwnedPrivateFile(dataDir, file(dataDir), `${JSON.stringify(c)}\n`);
      }
      backgroundTasks(db).succeeded(SIGNED_HEAD_TASK);
    } catch (err) {
      // not kept this time: the next checkpoint is checked from the one before, which still holds
      backgroundTasks(db).failed(SIGNED_HEAD_TASK, err, 'tried again at the next checkpoint');
    }
  });
}
