import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * C2SP signed notes (c2sp.org/signed-note), the checkpoints they carry (c2sp.org/tlog-checkpoint)
 * and witnesses' cosignatures of them (c2sp.org/tlog-cosignature, cosignature/v1), with Ed25519
 * keys only. docs/audit-chain.md, "The checkpoint note" and "Witnesses", says the same in prose.
 *
 * A note is read as hostile: its size and its number of signatures are bounded, and nothing in its
 * text is believed before a signature from a key the caller trusts verifies over it.
 */

/** Signature types of signed-note: a log's Ed25519 signature, a witness's timestamped cosignature. */
export const ED25519 = 0x01;
export const COSIGNATURE_V1 = 0x04;

/** A note larger than this is refused unread: a checkpoint with a few dozen signatures is ~5 KiB. */
const NOTE_MAX_BYTES = 64 * 1024;
/** The spec asks verifiers to take at least 16 signatures. */
const NOTE_MAX_SIGNATURES = 100;

const EM_DASH = '\u2014';
const NAME = /^[^\s+]+$/u;

export interface NoteSignature {
  name: string;
  keyId: Buffer;
  /** what follows the key ID: the signature (and for a cosignature, its timestamp first) */
  bytes: Buffer;
}

export interface Note {
  /** the signed text, ending in a newline */
  text: string;
  signatures: NoteSignature[];
}

/** The 32 raw bytes of an Ed25519 public key (the end of its SPKI DER). */
function rawEd25519(key: KeyObject): Buffer {
  const der = key.export({ type: 'spki', format: 'der' });
  return der.subarray(der.length - 32);
}

/** An Ed25519 public key from its 32 raw bytes. */
function ed25519FromRaw(raw: Buffer): KeyObject {
  const prefix = Buffer.from('302a300506032b6570032100', 'hex');
  return createPublicKey({ key: Buffer.concat([prefix, raw]), format: 'der', type: 'spki' });
}

/** key ID = SHA-256(name || 0x0A || type || public key)[:4] */
export function noteKeyId(name: string, type: number, key: KeyObject): Buffer {
  return createHash('sha256')
    .update(name)
    .update(Buffer.from([0x0a, type]))
    .update(rawEd25519(key))
    .digest()
    .subarray(0, 4);
}

/** Whether `name` may name a key: not empty, no spaces, no "+". */
export const isKeyName = (name: string): boolean => NAME.test(name) && name.length <= 256;

/** The note: its text, a blank line, one line per signature. */
export function formatNote(note: Note): string {
  const lines = note.signatures.map(
    (s) => `${EM_DASH} ${s.name} ${Buffer.concat([s.keyId, s.bytes]).toString('base64')}\n`,
  );
  return `${note.text}\n${lines.join('')}`;
}

/** A signed note read from outside, or a sentence saying what is wrong with it. */
export function parseNote(note: string): Note | string {
  if (Buffer.byteLength(note, 'utf8') > NOTE_MAX_BYTES) return `it is larger than ${NOTE_MAX_BYTES} bytes`;
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note) || note.includes('\ufffd'))
    return 'it holds control characters or bytes that are not UTF-8';
  if (!note.endsWith('\n')) return 'it does not end in a newline';
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return 'it has no blank line before its signatures';
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > NOTE_MAX_SIGNATURES) return `it has more than ${NOTE_MAX_SIGNATURES} signatures`;
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/]+={0,2})$/u.exec(line);
    if (!m || !isKeyName(m[1]!)) return 'a signature line is not "— NAME BASE64"';
    const raw = Buffer.from(m[2]!, 'base64');
    if (raw.length < 5 || raw.toString('base64') !== m[2])
      return 'a signature is not base64 of a key ID and a signature';
    signatures.push({ name: m[1]!, keyId: raw.subarray(0, 4), bytes: raw.subarray(4) });
  }
  return { text, signatures };
}

/** Signs the note text as `name` with an Ed25519 private key: the signature line's parts. */
export function signNote(text: string, name: string, privateKey: KeyObject): NoteSignature {
  const publicKey = createPublicKey(privateKey);
  return { name, keyId: noteKeyId(name, ED25519, publicKey), bytes: sign(null, Buffer.from(text, 'utf8'), privateKey) };
}

/**
 * Whether a signature by (`name`, `key`) over the note text is there and verifies: "missing" when
 * none has that name and key ID (signatures from other keys are ignored, as the spec says),
 * "invalid" when one has and does not verify.
 */
export function noteSignedBy(note: Note, name: string, key: KeyObject): 'valid' | 'missing' | 'invalid' {
  const id = noteKeyId(name, ED25519, key);
  const mine = note.signatures.filter((s) => s.name === name && s.keyId.equals(id));
  if (!mine.length) return 'missing';
  const text = Buffer.from(note.text, 'utf8');
  return mine.every((s) => s.bytes.length === 64 && verify(null, text, key, s.bytes)) ? 'valid' : 'invalid';
}

export interface CheckpointBody {
  origin: string;
  size: number;
  root: Buffer;
  /** the lines after the root, as the log wrote them */
  extensions: string[];
}

/** The checkpoint's text: origin, tree size, base64 root, then extension lines. */
export function checkpointText(c: CheckpointBody): string {
  return [c.origin, String(c.size), c.root.toString('base64'), ...c.extensions].map((l) => `${l}\n`).join('');
}

/** A checkpoint's text read from outside, or what is wrong with it. */
export function parseCheckpointText(text: string): CheckpointBody | string {
  const lines = text.split('\n');
  lines.pop(); // the text ends in a newline
  const [origin, size, root, ...extensions] = lines;
  if (!origin) return 'it has no origin line';
  if (size === undefined || !/^(0|[1-9][0-9]{0,15})$/.test(size) || !Number.isSafeInteger(Number(size)))
    return 'its second line is not a tree size';
  const hash = Buffer.from(root ?? '', 'base64');
  if (hash.length !== 32 || hash.toString('base64') !== root) return 'its third line is not a base64 SHA-256 root hash';
  if (extensions.some((l) => l === '')) return 'it has an empty extension line';
  return { origin, size: Number(size), root: hash, extensions };
}

/** The message a cosignature/v1 signs: a header, the time, then the whole checkpoint text. */
const cosignedMessage = (text: string, time: number) => Buffer.from(`cosignature/v1\ntime ${time}\n${text}`, 'utf8');

/** A witness's cosignature/v1 of a checkpoint text at `time` (whole seconds since the epoch). */
export function cosign(text: string, name: string, privateKey: KeyObject, time: number): NoteSignature {
  const publicKey = createPublicKey(privateKey);
  const stamp = Buffer.alloc(8);
  stamp.writeBigUInt64BE(BigInt(time));
  const signature = sign(null, cosignedMessage(text, time), privateKey);
  return { name, keyId: noteKeyId(name, COSIGNATURE_V1, publicKey), bytes: Buffer.concat([stamp, signature]) };
}

/**
 * The time of the witness's cosignature of the note, when one by (`name`, `key`) is there and
 * verifies; "missing" or "invalid" as for the log's own signature.
 */
export function cosignedBy(note: Note, name: string, key: KeyObject): { time: number } | 'missing' | 'invalid' {
  const id = noteKeyId(name, COSIGNATURE_V1, key);
  const theirs = note.signatures.filter((s) => s.name === name && s.keyId.equals(id));
  if (!theirs.length) return 'missing';
  let time = -1;
  for (const s of theirs) {
    if (s.bytes.length !== 72) return 'invalid';
    const t = s.bytes.readBigUInt64BE(0);
    if (t > BigInt(Number.MAX_SAFE_INTEGER)) return 'invalid';
    if (!verify(null, cosignedMessage(note.text, Number(t)), key, s.bytes.subarray(8))) return 'invalid';
    time = Math.max(time, Number(t));
  }
  return { time };
}

/**
 * A verifier key (c2sp.org/signed-note "vkey"): `name+KEYID+base64(type || public key)`, the one
 * line a witness or a log hands out so that a verifier knows both its name and its key.
 */
export function formatVerifierKey(name: string, type: number, key: KeyObject): string {
  const id = noteKeyId(name, type, key).toString('hex');
  return `${name}+${id}+${Buffer.concat([Buffer.from([type]), rawEd25519(key)]).toString('base64')}`;
}

/** A verifier key read from outside, or what is wrong with it. */
export function parseVerifierKey(line: string): { name: string; type: number; key: KeyObject } | string {
  const m = /^([^\s+]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+={0,2})$/.exec(line.trim());
  if (!m) return 'not a verifier key (NAME+KEYID+BASE64)';
  const raw = Buffer.from(m[3]!, 'base64');
  if (raw.length !== 33 || (raw[0] !== ED25519 && raw[0] !== COSIGNATURE_V1))
    return 'not an Ed25519 verifier key (type 1 or 4, 32 bytes)';
  const key = ed25519FromRaw(raw.subarray(1));
  if (noteKeyId(m[1]!, raw[0]!, key).toString('hex') !== m[2]) return 'its key ID does not match its name and key';
  return { name: m[1]!, type: raw[0]!, key };
}
