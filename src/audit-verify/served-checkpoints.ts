import { thousands } from '../text/thousands.js';
import { asCheckpoint, keyFingerprint, readPublicKey, signatureValid, type Checkpoint } from './checkpoint.js';

/**
 * The public keys an appliance serves (GET /audit/checkpoints `public_keys`), by their own
 * fingerprint: computed from each key, the one served beside it is not taken on trust.
 */
export function servedKeys(publicKeys: unknown[]): Map<string, string> {
  const keys = new Map<string, string>();
  for (const k of publicKeys) {
    const pem = (k as { public_key_pem?: unknown } | null)?.public_key_pem;
    const key = typeof pem === 'string' ? readPublicKey(pem) : 'none';
    if (typeof key !== 'string') keys.set(keyFingerprint(key), pem as string);
  }
  return keys;
}

/**
 * The checkpoints an appliance lists, as the live verify uses them (verifyTrail's `signed`): those
 * whose signature verifies with the pinned key or a key the appliance serves, and one finding for
 * each that does not. Items that are not checkpoints at all are left out.
 */
export function signedCheckpoints(
  items: unknown[],
  keys: Map<string, string>,
  pinnedPem?: string,
): { signed: Checkpoint[]; findings: string[] } {
  const pinned = pinnedPem === undefined ? undefined : readPublicKey(pinnedPem);
  const pinnedFingerprint = pinned && typeof pinned !== 'string' ? keyFingerprint(pinned) : undefined;
  const signed: Checkpoint[] = [];
  const findings: string[] = [];
  for (const item of items) {
    const c = asCheckpoint(item);
    if (typeof c === 'string') continue;
    const pem = pinnedFingerprint === c.key_fingerprint ? pinnedPem : keys.get(c.key_fingerprint);
    const key = pem ? readPublicKey(pem) : undefined;
    if (key && typeof key !== 'string' && signatureValid(c, key)) signed.push(c);
    else
      findings.push(`the checkpoint #${thousands(c.seq)} of ${c.at} does not verify with any key the appliance serves`);
  }
  return { signed, findings };
}
