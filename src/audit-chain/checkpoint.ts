import { createPublicKey, hash, sign, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The appliance's signed statement of the trail's head (docs/audit-chain.md, "Checkpoints"). */
export interface Checkpoint {
  seq: number;
  hash: string;
  at: string;
  signature: string;
  key_fingerprint: string;
}

export const HEX64 = /^[0-9a-f]{64}$/;
/** An RFC 3339 UTC time as the appliance writes one (seconds, optional fraction, Z). */
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;
/** base64 (standard alphabet, padded) of a 64-byte Ed25519 signature */
export const SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;

/** A checkpoint read from outside, or a sentence saying what is wrong with it. */
export function asCheckpoint(v: unknown): Checkpoint | string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const c = v as Record<string, unknown>;
  if (!Number.isSafeInteger(c.seq) || (c.seq as number) < 1) return 'its seq is not a whole number >= 1';
  if (typeof c.hash !== 'string' || !HEX64.test(c.hash)) return 'its hash is not 64 lowercase hex digits';
  if (typeof c.at !== 'string' || !TIME.test(c.at)) return 'its time (at) is not an RFC 3339 UTC time';
  if (typeof c.signature !== 'string' || !SIGNATURE.test(c.signature)) return 'it has no Ed25519 signature';
  if (typeof c.key_fingerprint !== 'string' || !HEX64.test(c.key_fingerprint))
    return 'it names no key (key_fingerprint: 64 lowercase hex digits)';
  return { seq: c.seq as number, hash: c.hash, at: c.at, signature: c.signature, key_fingerprint: c.key_fingerprint };
}

/** The bytes a checkpoint signs: the JCS canonical JSON of {at, hash, seq}, UTF-8. */
const checkpointPayload = (c: { seq: number; hash: string; at: string }): Buffer =>
  Buffer.from(canonicalize({ at: c.at, hash: c.hash, seq: c.seq })!, 'utf8');

/** Signs the head {seq, hash} at `at` with the appliance's private key. */
export function signCheckpoint(
  head: { seq: number; hash: string },
  at: string,
  key: { privateKey: KeyObject; fingerprint: string },
): Checkpoint {
  const signature = sign(null, checkpointPayload({ ...head, at }), key.privateKey).toString('base64');
  return { seq: head.seq, hash: head.hash, at, signature, key_fingerprint: key.fingerprint };
}

/** Whether the checkpoint's Ed25519 signature over JCS {at, hash, seq} verifies with `key`. */
export const checkpointSignatureValid = (c: Checkpoint, key: KeyObject): boolean =>
  signatureValid(checkpointPayload(c), c.signature, key);

/** Whether `signature` (base64) is `key`'s Ed25519 signature of `payload`. */
export function signatureValid(payload: Buffer, signature: string, key: KeyObject): boolean {
  try {
    return verify(null, payload, key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** A PEM (SPKI) Ed25519 public key, or a sentence saying why it is not one. */
export function readPublicKey(pem: string): KeyObject | string {
  // a key is a few hundred bytes: a longer "PEM" is not parsed (parsing junk is slow)
  if (pem.length > 4096 || !pem.includes('-----BEGIN PUBLIC KEY-----')) return 'not a PEM public key';
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'ed25519' ? key : `an ${String(key.asymmetricKeyType)} key, not Ed25519`;
  } catch {
    return 'not a PEM public key';
  }
}

/** Lowercase hex SHA-256 of the raw 32-byte key (the last 32 bytes of its SPKI DER). */
export function keyFingerprint(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return hash('sha256', der.subarray(der.length - 32), 'hex');
}

/** PEM (SPKI) of a public key, as served and as `--key` takes it. */
export const publicKeyPem = (key: KeyObject): string => key.export({ type: 'spki', format: 'pem' }).toString();

/**
 * Public keys by their own fingerprint, computed from each key (the fingerprint served beside a key
 * is not taken on trust), from a list of `{public_key_pem}` records as served or packed.
 */
export function keysByFingerprint(records: unknown[], max = 1000): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const r of records.slice(0, max)) {
    const pem = (r as { public_key_pem?: unknown } | null)?.public_key_pem;
    const key = typeof pem === 'string' ? readPublicKey(pem) : 'none';
    if (typeof key !== 'string') keys.set(keyFingerprint(key), key);
  }
  return keys;
}
