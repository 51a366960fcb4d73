import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { consistencyProof } from '../../src/audit-chain/merkle.js';
import { cosignedBy, parseNote } from '../../src/audit-chain/note.js';
import { verifyTreeCheckpoint, type SignedTree, type TreeCheckpoint } from '../../src/audit-chain/tree-checkpoint.js';
import { compareTrees, proofNeeded } from '../../src/audit-chain/tree-consistency.js';
import { cosignedNote, newWitnessKey, readWitnessSigner, witnessDecision } from '../../src/audit-chain/witness.js';
import { chainedTrail, rehash, signingKey } from '../helpers/audit-chain.js';
import { treeCheckpoint, treeOf } from '../helpers/tree-fixture.js';

const key = signingKey();
const trust = { keys: new Map([[key.fingerprint, createPublicKey(key.publicKeyPem)]]), pinned: true, source: 'pinned' };
const trail = chainedTrail(50);
// the same history to #30, then another: a forger's copy signed with the same key
const forked = rehash([...trail.slice(0, 30), ...trail.slice(30).map((e) => ({ ...e, outcome: 'denied' }))]);
const signed = (c: TreeCheckpoint): SignedTree => {
  const r = verifyTreeCheckpoint(c, trust);
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.tree;
};
const at = (entries: typeof trail, size: number) => signed(treeCheckpoint(entries, size, key));
const proof = (entries: typeof trail, from: number, to: number) => consistencyProof(treeOf(entries).nodes, from, to);

describe('two signed checkpoints: one history or two', () => {
  it('a larger tree with a valid consistency proof extends the earlier one; the same tree is the same', () => {
    expect(proofNeeded(at(trail, 20), at(trail, 45))).toEqual({ from: 20, to: 45 });
    expect(compareTrees(at(trail, 20), at(trail, 45), proof(trail, 20, 45))).toEqual({ kind: 'extends' });
    expect(compareTrees(at(trail, 45), at(trail, 45), null)).toEqual({ kind: 'same' });
    expect(compareTrees(at(trail, 45), at(trail, 20), proof(trail, 20, 45))).toEqual({ kind: 'older' });
  });

  it('a fork: same size, other root; or no valid proof joins them (the forger cannot make one)', () => {
    expect(compareTrees(at(trail, 40), at(forked, 40), null)).toEqual({
      kind: 'fork',
      why: 'two signed checkpoints of tree size 40 have different roots',
    });
    const c = compareTrees(at(trail, 35), at(forked, 45), proof(forked, 35, 45));
    expect(c).toMatchObject({ kind: 'fork' });
    expect((c as { why: string }).why).toMatch(/not proven a prefix.*does not verify/);
    // before the fork point the histories agree
    expect(compareTrees(at(trail, 25), at(forked, 45), proof(forked, 25, 45))).toEqual({ kind: 'extends' });
  });
});

describe('the witness cosigns only what extends what it cosigned', () => {
  const w = readWitnessSigner(newWitnessKey('witness.example/w1').privateText);
  if (typeof w === 'string') throw new Error(w);
  it('cosigns the first checkpoint it sees, and one that extends it; refuses an older one and a fork', () => {
    expect(witnessDecision(null, at(trail, 30), null)).toEqual({ cosign: true, compared: null });
    expect(witnessDecision(at(trail, 30), at(trail, 45), proof(trail, 30, 45)).cosign).toBe(true);
    const older = witnessDecision(at(trail, 45), at(trail, 30), proof(trail, 30, 45));
    expect(older).toMatchObject({ cosign: false, compared: { kind: 'older' } });
    const fork = witnessDecision(at(trail, 40), at(forked, 45), proof(forked, 40, 45));
    expect(fork).toMatchObject({ cosign: false, compared: { kind: 'fork' } });
  });

  it("its cosignature/v1 line verifies over the note, beside the appliance's own line only", () => {
    const tree = at(trail, 30);
    const once = cosignedNote(tree, w, 1_790_000_000);
    const read = parseNote(once);
    if (typeof read === 'string') throw new Error(read);
    expect(cosignedBy(read, w.name, w.publicKey)).toEqual({ time: 1_790_000_000 });
    const twice = parseNote(cosignedNote({ ...tree, note: read }, w, 1_790_000_060));
    if (typeof twice === 'string') throw new Error(twice);
    expect(twice.signatures).toHaveLength(2);
    expect(cosignedBy(twice, w.name, w.publicKey)).toEqual({ time: 1_790_000_060 });
  });
});
