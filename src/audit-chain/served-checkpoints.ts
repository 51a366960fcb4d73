import { displayFingerprint } from '../text/fingerprint.js';
import { thousands } from '../text/thousands.js';
import { asCheckpoint, checkpointSignatureValid, type Checkpoint } from './checkpoint.js';
import type { Trust } from './verify-trail.js';

/** The most items of a checkpoint list looked at (the live verify passes one, the newest). */
const MAX_CHECKPOINTS = 100;

/**
 * The checkpoints an appliance lists, as the live verify uses them (verifyTrail's `signed`): those
 * whose signature verifies with a trusted key. One naming a trusted key whose signature fails is a
 * finding; one naming another key is a finding when the keys are the appliance's own list (it lists
 * every key it ever signed with), and cannot be checked when a key was pinned (an older, rotated key).
 * Items that are not checkpoints at all are left out.
 */
export function signedCheckpoints(
  items: unknown[],
  trust: Trust,
): { signed: Checkpoint[]; findings: string[]; unknowns: string[] } {
  const signed: Checkpoint[] = [];
  const findings: string[] = [];
  const others = new Map<string, number>();
  let bad = 0;
  for (const item of items.slice(0, MAX_CHECKPOINTS)) {
    const c = asCheckpoint(item);
    if (typeof c === 'string') continue;
    const key = trust.keys.get(c.key_fingerprint);
    if (key && checkpointSignatureValid(c, key)) signed.push(c);
    else if (key || !trust.pinned) {
      if (++bad <= 20)
        findings.push(
          `the checkpoint #${thousands(c.seq)} of ${c.at} does not verify with ${trust.source}` +
            (key ? '' : ` (it names key ${displayFingerprint(c.key_fingerprint)})`),
        );
    } else others.set(c.key_fingerprint, (others.get(c.key_fingerprint) ?? 0) + 1);
  }
  if (bad > 20) findings.push(`… and ${thousands(bad - 20)} more checkpoints like those above`);
  const unknowns = [...others].map(
    ([f, count]) =>
      `${thousands(count)} checkpoint${count === 1 ? '' : 's'} signed by key ${displayFingerprint(f)}, ` +
      `not ${trust.source}, could not be checked (a key the appliance used before a rotation?)`,
  );
  return { signed, findings, unknowns };
}
