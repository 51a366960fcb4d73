import type { KeyObject } from 'node:crypto';
import { COSIGNATURE_V1, cosignedBy, parseVerifierKey } from './note.js';
import type { SignedTree } from './tree-checkpoint.js';

/** A witness a verifier requires: its name and cosignature/v1 public key, from its vkey line. */
export interface WitnessKey {
  name: string;
  key: KeyObject;
  /** the vkey line, as given (for messages) */
  vkey: string;
}

/** A witness's vkey line (`NAME+KEYID+base64(0x04 || key)`, as `audit witness-key` writes W.pub), or what is wrong. */
export function readWitnessKey(line: string): WitnessKey | string {
  const vk = parseVerifierKey(line);
  if (typeof vk === 'string') return vk;
  if (vk.type !== COSIGNATURE_V1) return 'it is a log key (type 1), not a witness cosignature key (type 4)';
  return { name: vk.name, key: vk.key, vkey: line.trim() };
}

/**
 * One finding per required witness that did not cosign this checkpoint's note: without it nothing
 * shows that this checkpoint is the one everyone else was shown (docs/audit-chain.md, "Witnesses").
 */
export function witnessFindings(tree: SignedTree, witnesses: WitnessKey[]): string[] {
  const out: string[] = [];
  for (const w of witnesses) {
    const c = cosignedBy(tree.note, w.name, w.key);
    if (c === 'missing')
      out.push(
        `the checkpoint of tree size ${tree.size} carries no cosignature of witness ${w.name}: nothing shows that ` +
          'the witness saw this history',
      );
    else if (c === 'invalid')
      out.push(`the cosignature of witness ${w.name} on the checkpoint of tree size ${tree.size} does not verify`);
  }
  return out;
}
