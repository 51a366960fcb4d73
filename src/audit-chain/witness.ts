import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { COSIGNATURE_V1, cosign, formatNote, formatVerifierKey, isKeyName, noteKeyId } from './note.js';
import { compareTrees, type Compared } from './tree-consistency.js';
import type { SignedTree } from './tree-checkpoint.js';

/**
 * A witness (c2sp.org/tlog-witness, docs/audit-chain.md "Witnesses"): it cosigns a checkpoint only
 * when it extends the last one it cosigned for that log, so that a log that shows one history to
 * some and another to others cannot have both cosigned by the same witness.
 */

/** What the witness does with the newest checkpoint, given the last it cosigned (null: none yet). */
export type WitnessDecision =
  { cosign: true; compared: Compared | null } | { cosign: false; compared: Compared; why: string };

export function witnessDecision(last: SignedTree | null, newest: SignedTree, proof: Buffer[] | null): WitnessDecision {
  if (!last) return { cosign: true, compared: null };
  const compared = compareTrees(last, newest, proof);
  if (compared.kind === 'same' || compared.kind === 'extends') return { cosign: true, compared };
  if (compared.kind === 'older')
    return {
      cosign: false,
      compared,
      why: `the newest checkpoint (tree size ${newest.size}) is older than the one the witness cosigned (${last.size})`,
    };
  return { cosign: false, compared, why: compared.why };
}

/**
 * The note with the appliance's own signature and the witness's cosignature/v1 line: what the
 * appliance takes (other witnesses' lines are left out: the route keeps one line per request).
 */
export function cosignedNote(tree: SignedTree, witness: WitnessSigner, time: number): string {
  const mine = cosign(tree.note.text, witness.name, witness.privateKey, time);
  const logs = tree.note.signatures.filter((s) => s.name === tree.origin);
  return formatNote({ text: tree.note.text, signatures: [...logs, mine] });
}

export interface WitnessSigner {
  name: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/**
 * A witness's private key file, in the form of Go's note signer keys:
 * `PRIVATE+KEY+NAME+KEYID+base64(0x04 || 32-byte Ed25519 seed)`; its public half is the vkey line.
 */
export function newWitnessKey(name: string): { privateText: string; vkey: string } {
  if (!isKeyName(name)) throw new RangeError('a witness name has no spaces and no "+"');
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const der = privateKey.export({ type: 'pkcs8', format: 'der' });
  const seed = der.subarray(der.length - 32);
  const id = noteKeyId(name, COSIGNATURE_V1, publicKey).toString('hex');
  const body = Buffer.concat([Buffer.from([COSIGNATURE_V1]), seed]).toString('base64');
  return {
    privateText: `PRIVATE+KEY+${name}+${id}+${body}\n`,
    vkey: `${formatVerifierKey(name, COSIGNATURE_V1, publicKey)}\n`,
  };
}

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A witness's private key file's text, or what is wrong with it. */
export function readWitnessSigner(text: string): WitnessSigner | string {
  const m = /^PRIVATE\+KEY\+([^\s+]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+={0,2})$/.exec(text.trim());
  if (!m) return 'not a witness private key (PRIVATE+KEY+NAME+KEYID+BASE64, as audit witness-key writes it)';
  const raw = Buffer.from(m[3]!, 'base64');
  if (raw.length !== 33 || raw[0] !== COSIGNATURE_V1) return 'not a cosignature/v1 Ed25519 key (type 4, 32 bytes)';
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519, raw.subarray(1)]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey);
  if (noteKeyId(m[1]!, COSIGNATURE_V1, publicKey).toString('hex') !== m[2])
    return 'its key ID does not match its name and key';
  return { name: m[1]!, privateKey, publicKey };
}
