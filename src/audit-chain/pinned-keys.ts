import type { KeyObject } from 'node:crypto';
import { keyFingerprint, readPublicKey } from './checkpoint.js';
import { pemBlocks, type PinnedAuditKey } from './keys-file.js';
import type { Trust } from './verify-trail.js';

/** The Ed25519 keys of a key file's text by their fingerprint, or why a block is not one ("is …"). */
export function pinnedKeysOf(pem: string): Map<string, KeyObject> | string {
  const keys = new Map<string, KeyObject>();
  const blocks = pemBlocks(pem);
  if (!blocks.length) return 'not a PEM public key';
  for (const block of blocks) {
    const key = readPublicKey(block);
    if (typeof key === 'string') return key;
    keys.set(keyFingerprint(key), key);
  }
  return keys;
}

/**
 * The keys of a key file (keys-file.ts), pinned: the trust every verifier checks signatures with
 * when a key was given out of band. A sentence saying why when a block is not an Ed25519 key.
 */
export function trustOfPem(k: PinnedAuditKey): Trust | string {
  const keys = pinnedKeysOf(k.pem);
  if (typeof keys === 'string') return `the key file ${k.file} is ${keys}`;
  // the fingerprints are said where they matter: beside the key that signed, or the ones a signature missed
  return { keys, pinned: true, source: keys.size === 1 ? 'the key you pinned' : 'the keys you pinned' };
}
