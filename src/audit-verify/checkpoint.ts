import { createPublicKey, hash, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The appliance's signed statement of the trail's head (docs/audit-chain.md). */
export interface Checkpoint {
  seq: number;
  hash: string;
  at: string;
  signature: string;
  key_fingerprint: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** A checkpoint read from outside, or a sentence saying what is wrong with it. */
export function asCheckpoint(v: unknown): Checkpoint | string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const c = v as Record<string, unknown>;
  if (!Number.isSafeInteger(c.seq) || (c.seq as number) < 1) return 'its seq is not a whole number >= 1';
  if (typeof c.hash !== 'string' || !HEX64.test(c.hash)) return 'its hash is not 64 lowercase hex digits';
  if (typeof c.at !== 'string') return 'it has no time (at)';
  if (typeof c.signature !== 'string') return 'it has no signature';
  if (typeof c.key_fingerprint !== 'string') return 'it names no key (key_fingerprint)';
  return {
    seq: c.seq as number,
    hash: c.hash,
    at: c.at,
    signature: c.signature,
    key_fingerprint: c.key_fingerprint.toLowerCase(),
  };
}

/**
 * A checkpoint file: FILE.checkpoint.json as the CLI writes it beside an export
 * ({"checkpoint": {…}, "filtered": bool, "filters": {…}}), or a bare checkpoint (one kept from
 * GET /audit/checkpoints).
 */
export function parseCheckpointFile(
  text: string,
): { checkpoint: Checkpoint; filtered?: boolean; filters?: Record<string, unknown> } | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const wrapped = v !== null && typeof v === 'object' && 'checkpoint' in v;
  const checkpoint = asCheckpoint(wrapped ? (v as { checkpoint: unknown }).checkpoint : v);
  if (typeof checkpoint === 'string') return checkpoint;
  const { filtered, filters } = wrapped ? (v as { filtered?: unknown; filters?: unknown }) : {};
  return {
    checkpoint,
    ...(typeof filtered === 'boolean' ? { filtered } : {}),
    ...(filters !== null && typeof filters === 'object' && !Array.isArray(filters)
      ? { filters: filters as Record<string, unknown> }
      : {}),
  };
}

/** A PEM (SPKI) Ed25519 public key, or a sentence saying why it is not one. */
export function readPublicKey(pem: string): KeyObject | string {
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

/** `SHA256:1a2b 3c4d 5e6f 7a8b`, as the screens show a fingerprint. */
export const showFingerprint = (fingerprint: string): string =>
  `SHA256:${(fingerprint.slice(0, 16).match(/.{1,4}/g) ?? []).join(' ')}`;

/** Whether the checkpoint's Ed25519 signature over JCS {at, hash, seq} verifies with `key`. */
export function signatureValid(c: Checkpoint, key: KeyObject): boolean {
  const payload = Buffer.from(canonicalize({ at: c.at, hash: c.hash, seq: c.seq }) ?? '', 'utf8');
  try {
    return verify(null, payload, key, Buffer.from(c.signature, 'base64'));
  } catch {
    return false;
  }
}
