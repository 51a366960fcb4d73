import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { keyFingerprint, publicKeyPem } from '../../audit-chain/checkpoint.js';
import type { Db } from '../db/sqlite-driver.js';
import { makePrivate, writeOwnedPrivateFile } from '../db/data-dir.js';
import { iso } from '../ids.js';

/**
 * The appliance's checkpoint signing key: Ed25519, PKCS#8 PEM in the data directory, mode 0600
 * like the database. Only its public half leaves this module (audit_keys, the checkpoints route).
 */
export const KEY_FILE = 'audit-signing-key.pem';

export interface SigningKey {
  privateKey: KeyObject;
  fingerprint: string;
}

export interface PublicKeyRecord {
  fingerprint: string;
  algorithm: 'Ed25519';
  public_key_pem: string;
  created_at: string;
  retired_at: string | null;
}

const keyFile = (dataDir: string) => join(dataDir, KEY_FILE);

function readKeyFile(dataDir: string): SigningKey | null {
  const file = keyFile(dataDir);
  if (!existsSync(file)) return null;
  try {
    makePrivate(file);
    const privateKey = createPrivateKey(readFileSync(file, 'utf8'));
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${file} does not hold an Ed25519 key`);
    return { privateKey, fingerprint: keyFingerprint(createPublicKey(privateKey)) };
  } catch (err) {
    // the deployment status names the file (health.ts): EISDIR and OpenSSL's errors do not
    if (err && typeof err === 'object') (err as NodeJS.ErrnoException).path ??= file;
    throw err;
  }
}

/**
 * A new key, written in place of the old one: created 0600 beside it, owned by the data directory's
 * owner (a rotation run as root must leave a key the server can read), then renamed over it.
 */
function writeNewKey(dataDir: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  writeOwnedPrivateFile(dataDir, keyFile(dataDir), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  return { privateKey, fingerprint: keyFingerprint(publicKey) };
}

export const currentFingerprint = (db: Db): string | null =>
  (db.prepare('SELECT fingerprint FROM audit_keys WHERE retired_at IS NULL').pluck().get() as string | undefined) ??
  null;

/** Makes `key` the current public key, retiring the one before; returns the retired fingerprint. */
function registerKey(db: Db, key: SigningKey): string | null {
  const now = iso();
  const before = currentFingerprint(db);
  db.prepare('UPDATE audit_keys SET retired_at = ? WHERE retired_at IS NULL').run(now);
  const pem = publicKeyPem(createPublicKey(key.privateKey));
  db.prepare(
    `INSERT INTO audit_keys (fingerprint, algorithm, public_key_pem, created_at, retired_at) VALUES (?, 'Ed25519', ?, ?, NULL)
     ON CONFLICT (fingerprint) DO UPDATE SET retired_at = NULL`,
  ).run(key.fingerprint, pem, now);
  return before;
}

/** Every public key, current first then newest retired first: old checkpoints verify with theirs. */
export const publicKeys = (db: Db): PublicKeyRecord[] =>
  db
    .prepare(
      `SELECT fingerprint, algorithm, public_key_pem, created_at, retired_at FROM audit_keys
       ORDER BY retired_at IS NOT NULL, retired_at DESC, created_at DESC`,
    )
    .all() as PublicKeyRecord[];

export interface KeyChange {
  key: SigningKey;
  /** the fingerprint it replaced, when there was a current key */
  replaced: string | null;
}

/**
 * The signing key in the data directory, made at first start. A key file that is missing while
 * the database has a current key, or holds a key the database does not know, is a key change:
 * `replaced` says which one the caller must audit.
 */
export function loadSigningKey(db: Db, dataDir: string): KeyChange {
  const key = readKeyFile(dataDir) ?? writeNewKey(dataDir);
  const current = currentFingerprint(db);
  if (current === key.fingerprint) return { key, replaced: null };
  return { key, replaced: db.transaction(() => registerKey(db, key))() };
}

/**
 * A new key in place of the current one; the caller audits it and signs a checkpoint with it, in
 * `then`. When that fails (a trail the signer refuses), the old key file is put back: a key file the
 * database does not know would be taken at the next start as a key changed behind its back.
 */
export function rotateSigningKey(db: Db, dataDir: string, then: (change: KeyChange) => void): KeyChange {
  const file = keyFile(dataDir);
  const before = existsSync(file) ? readFileSync(file) : null;
  const key = writeNewKey(dataDir);
  try {
    return db
      .transaction(() => {
        const change = { key, replaced: registerKey(db, key) };
        then(change);
        return change;
      })
      .immediate();
  } catch (err) {
    if (before) writeOwnedPrivateFile(dataDir, file, before);
    else rmSync(file, { force: true });
    throw err;
  }
}
