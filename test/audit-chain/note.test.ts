import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  COSIGNATURE_V1,
  ED25519,
  checkpointText,
  cosign,
  cosignedBy,
  formatNote,
  formatVerifierKey,
  noteSignedBy,
  parseCheckpointText,
  parseNote,
  parseVerifierKey,
  signNote,
} from '../../src/audit-chain/note.js';

const log = generateKeyPairSync('ed25519');
const witness = generateKeyPairSync('ed25519');
const ORIGIN = 'appliance.example/audit/1a2b';
const text = checkpointText({
  origin: ORIGIN,
  size: 42,
  root: Buffer.alloc(32, 7),
  extensions: ['chain-head 42 ab 2026'],
});
const signed = formatNote({ text, signatures: [signNote(text, ORIGIN, log.privateKey)] });
const read = (n: string) => {
  const note = parseNote(n);
  if (typeof note === 'string') throw new Error(note);
  return note;
};

describe('signed notes (c2sp.org/signed-note)', () => {
  it('verifies a note signed by Go’s sumdb note package (its documented example)', () => {
    const vk = parseVerifierKey('PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW');
    if (typeof vk === 'string') throw new Error(vk);
    const note = read(
      "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n",
    );
    expect(noteSignedBy(note, 'PeterNeumann', vk.key)).toBe('valid');
    expect(noteSignedBy({ ...note, text: note.text.replace('problem,', 'problem;') }, 'PeterNeumann', vk.key)).toBe(
      'invalid',
    );
  });

  it('a checkpoint note reads back as written, signed by the log, and not by another key or name', () => {
    const note = read(signed);
    expect(parseCheckpointText(note.text)).toEqual({
      origin: ORIGIN,
      size: 42,
      root: Buffer.alloc(32, 7),
      extensions: ['chain-head 42 ab 2026'],
    });
    expect(noteSignedBy(note, ORIGIN, log.publicKey)).toBe('valid');
    expect(noteSignedBy(note, ORIGIN, witness.publicKey)).toBe('missing');
    expect(noteSignedBy(note, 'other.example/log', log.publicKey)).toBe('missing');
    expect(noteSignedBy(read(signed.replace('\n42\n', '\n43\n')), ORIGIN, log.publicKey)).toBe('invalid');
  });

  it('a witness cosigns the whole checkpoint text with its time; a changed time or text fails', () => {
    const co = cosign(text, 'witness.example/w1', witness.privateKey, 1_764_400_000);
    const note = read(formatNote({ text, signatures: [...read(signed).signatures, co] }));
    expect(cosignedBy(note, 'witness.example/w1', witness.publicKey)).toEqual({ time: 1_764_400_000 });
    // the log's own signature is not a cosignature (another key ID type), and the witness's is not the log's
    expect(cosignedBy(note, ORIGIN, log.publicKey)).toBe('missing');
    expect(noteSignedBy(note, 'witness.example/w1', witness.publicKey)).toBe('missing');
    const bytes = Buffer.from(co.bytes);
    bytes.writeBigUInt64BE(1_764_400_001n);
    const retimed = read(formatNote({ text, signatures: [{ ...co, bytes }] }));
    expect(cosignedBy(retimed, 'witness.example/w1', witness.publicKey)).toBe('invalid');
    const moved = read(formatNote({ text: text.replace('42', '41'), signatures: [co] }));
    expect(cosignedBy(moved, 'witness.example/w1', witness.publicKey)).toBe('invalid');
  });

  it('verifier keys round-trip and name their type', () => {
    const line = formatVerifierKey('witness.example/w1', COSIGNATURE_V1, witness.publicKey);
    const vk = parseVerifierKey(line);
    if (typeof vk === 'string') throw new Error(vk);
    expect(vk.type).toBe(COSIGNATURE_V1);
    expect(vk.key.equals(witness.publicKey)).toBe(true);
    expect(parseVerifierKey(line.replace('witness.example/w1', 'witness.example/w2'))).toMatch(/key ID does not match/);
    expect(parseVerifierKey(formatVerifierKey(ORIGIN, ED25519, log.publicKey))).toMatchObject({ type: ED25519 });
    expect(parseVerifierKey('nonsense')).toMatch(/not a verifier key/);
  });

  it('refuses hostile notes with a reason, unread', () => {
    expect(parseNote('x'.repeat(70_000) + '\n\n— a AAAAAAA=\n')).toMatch(/larger than/);
    expect(parseNote(signed.replace('\n42\n', '\n4\u00072\n'))).toMatch(/control characters/);
    expect(parseNote(signed.slice(0, -1))).toMatch(/newline/);
    expect(parseNote(text)).toMatch(/no blank line|signature line/);
    const many = `${text}\n${'— a AAAAAAAA\n'.repeat(101)}`;
    expect(parseNote(many)).toMatch(/more than 100 signatures/);
    expect(parseNote(`${text}\n— a b c\n`)).toMatch(/signature line/);
    expect(parseCheckpointText('o\n-1\nAA==\n')).toMatch(/tree size/);
    expect(parseCheckpointText('o\n1\nAA==\n')).toMatch(/root hash/);
    expect(parseCheckpointText(`o\n1\n${Buffer.alloc(32).toString('base64')}\n\n`)).toMatch(/empty extension/);
  });
});
