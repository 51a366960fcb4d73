import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cosign, formatNote, parseNote } from '../../src/audit-chain/note.js';
import { parseProofFile, proofFileText, verifyProofFile, type ProofFile } from '../../src/audit-chain/proof-file.js';
import { sampleLeaves } from '../../src/audit-chain/sample.js';
import type { TreeCheckpoint } from '../../src/audit-chain/tree-checkpoint.js';
import type { Trust } from '../../src/audit-chain/verify-trail.js';
import { readWitnessKey } from '../../src/audit-chain/witness-check.js';
import { newWitnessKey, readWitnessSigner } from '../../src/audit-chain/witness.js';
import { chainedTrail, entryHash, signingKey, type SigningKey } from '../helpers/audit-chain.js';
import { proofFileOf, treeCheckpoint } from '../helpers/tree-fixture.js';

const key = signingKey();
const other = signingKey();
const trail = chainedTrail(40, (i) => ({ note: `step ${i}` }));
const trustOf = (k: SigningKey, pinned = true): Trust => ({
  keys: new Map([[k.fingerprint, createPublicKey(k.publicKeyPem)]]),
  pinned,
  source: pinned ? 'the key you pinned' : 'the keys the appliance serves',
});
const pinned = trustOf(key);
const checkpoint = treeCheckpoint(trail, 37, key);
/** through the file's text and back, as verify-proof reads it */
const roundTrip = (p: ProofFile): ProofFile => {
  const read = parseProofFile(proofFileText(p));
  if (typeof read === 'string') throw new Error(read);
  return read;
};

describe('proof files: verified offline against the signed checkpoint', () => {
  it('verifies entries with their inclusion proofs, with the pinned key, and says what it proved', () => {
    const r = verifyProofFile(roundTrip(proofFileOf(trail, checkpoint, [0, 11, 36])), pinned);
    expect(r.findings).toEqual([]);
    expect(r.verdict).toBe('verified');
    expect(r.proven).toMatch(
      /^entries #1, #12, #37 unaltered and in the trail of appliance-admin\/0123456789abcdef at tree size 37 \(checkpoint #37/,
    );
  });

  it('a changed entry fails its proof; an entry moved to another leaf fails too', () => {
    const p = proofFileOf(trail, checkpoint, [5, 20]);
    const changed = { ...p.entries[0]!.entry, status: 500 };
    p.entries[0] = { ...p.entries[0]!, entry: { ...changed, hash: entryHash(changed) } };
    p.entries[1] = { ...p.entries[1]!, leaf_index: 21 };
    const r = verifyProofFile(roundTrip(p), pinned);
    expect(r.verdict).toBe('broken');
    expect(r.findings).toEqual([
      "entry #6: its inclusion proof does not lead to the checkpoint's root: it is not in the signed trail as it is",
      'entry #21 cannot be leaf 21 of this checkpoint',
      "entry #21: its inclusion proof does not lead to the checkpoint's root: it is not in the signed trail as it is",
    ]);
  });

  it('an entry edited without its hash is named as changed', () => {
    const p = proofFileOf(trail, checkpoint, [3]);
    p.entries[0] = { ...p.entries[0]!, entry: { ...p.entries[0]!.entry, outcome: 'denied' } };
    expect(verifyProofFile(roundTrip(p), pinned).findings).toEqual([
      'entry #4: hash does not match its contents (it was changed)',
    ]);
  });

  it('a checkpoint signed by another key fails with the pinned key, and without a key cannot be checked', () => {
    const forged = proofFileOf(trail, treeCheckpoint(trail, 37, other), [2]);
    const r = verifyProofFile(roundTrip(forged), pinned);
    expect(r.verdict).toBe('broken');
    expect(r.findings[0]).toMatch(/^the proof file's checkpoint #37 is signed by key SHA256:.* not the key you pinned/);
    const none = verifyProofFile(forged, { keys: new Map(), pinned: false, source: 'no key' });
    expect(none.verdict).toBe('cannot-check');
  });

  it('a note that says another tree than its JSON, or another chain head, is a finding', () => {
    const other37 = treeCheckpoint(trail, 36, key);
    const mixed: TreeCheckpoint = { ...checkpoint, note: other37.note };
    expect(verifyProofFile(proofFileOf(trail, mixed, [1]), pinned).findings).toEqual([
      "the proof file's checkpoint #37: its note signs another tree size or root than it says",
    ]);
    const edited = { ...checkpoint, note: checkpoint.note.replace('\n37\n', '\n38\n') };
    expect(verifyProofFile(proofFileOf(trail, edited, [1]), pinned).findings[0]).toMatch(
      /its note's signature does not verify/,
    );
  });

  it('parses hostile files into a sentence, never a throw', () => {
    expect(parseProofFile('[')).toBe('it is not JSON');
    expect(parseProofFile('{"format":"x"}')).toMatch(/not a proof file/);
    const p = JSON.parse(proofFileText(proofFileOf(trail, checkpoint, [1]))) as Record<string, unknown>;
    expect(parseProofFile(JSON.stringify({ ...p, entries: [{ entry: {}, leaf_index: -1, path: [] }] }))).toMatch(
      /entry 1 is not/,
    );
    expect(parseProofFile(JSON.stringify({ ...p, entries: 'x' }))).toBe('it holds no list of entries');
  });
});

describe('samples: drawn from a stated seed', () => {
  const seed = 'ab'.repeat(16);
  it('draws distinct leaves in the population, the same for the same seed, others for another', () => {
    const a = sampleLeaves(seed, 100, 1000, 25);
    expect(a).toEqual(sampleLeaves(seed, 100, 1000, 25));
    expect(new Set(a).size).toBe(25);
    expect(a.every((l) => l >= 100 && l < 1100)).toBe(true);
    expect(sampleLeaves('cd'.repeat(16), 100, 1000, 25)).not.toEqual(a);
    expect(sampleLeaves(seed, 0, 5, 5)).toEqual([0, 1, 2, 3, 4]);
    expect(() => sampleLeaves(seed, 0, 5, 6)).toThrow(RangeError);
  });

  it('a sample verifies when its entries are those its seed draws, and not when one was swapped', () => {
    const population = 30;
    const leaves = sampleLeaves(seed, 37 - population, population, 5);
    const stated = { seed, since: '2026-11-01T00:00:07Z', until: checkpoint.at, population, size: 5 };
    const good = verifyProofFile(roundTrip(proofFileOf(trail, checkpoint, leaves, stated)), pinned);
    expect(good.findings).toEqual([]);
    expect(good.notes[0]).toMatch(/^the sample: 5 of 30 entries \(leaves 7–36/);
    const swapped = [...leaves.slice(0, 4), leaves[4] === 36 ? 35 : 36].sort((x, y) => x - y);
    const bad = verifyProofFile(roundTrip(proofFileOf(trail, checkpoint, swapped, stated)), pinned);
    expect(bad.findings).toEqual(['the entries are not those the stated seed draws: the sample was chosen otherwise']);
  });
});

describe('witness cosignatures on the checkpoint', () => {
  const w = newWitnessKey('witness.example/aude');
  const signer = readWitnessSigner(w.privateText);
  const vkey = readWitnessKey(w.vkey);
  if (typeof signer === 'string' || typeof vkey === 'string') throw new Error('witness key');
  it('a key file reads back; its vkey is a cosignature key', () => {
    expect(signer.name).toBe('witness.example/aude');
    expect(readWitnessSigner(w.privateText.replace('+KEY+witness', '+KEY+wetness'))).toBe(
      'its key ID does not match its name and key',
    );
    expect(readWitnessKey('x+00000000+AQ==')).toMatch(/not an Ed25519 verifier key/);
  });

  it('a required witness that did not cosign is a finding; its cosignature verifies', () => {
    const bare = verifyProofFile(proofFileOf(trail, checkpoint, [4]), pinned, { witnesses: [vkey] });
    expect(bare.findings).toEqual([
      'the checkpoint of tree size 37 carries no cosignature of witness witness.example/aude: nothing shows that the witness saw this history',
    ]);
    const note = parseNote(checkpoint.note);
    if (typeof note === 'string') throw new Error(note);
    const cosigned = formatNote({
      text: note.text,
      signatures: [...note.signatures, cosign(note.text, signer.name, signer.privateKey, 1_790_000_000)],
    });
    const r = verifyProofFile(proofFileOf(trail, { ...checkpoint, note: cosigned }, [4]), pinned, {
      witnesses: [vkey],
    });
    expect(r.findings).toEqual([]);
    expect(r.verdict).toBe('verified');
  });
});
