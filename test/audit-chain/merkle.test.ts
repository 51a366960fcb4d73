import { createHash, generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  MemoryTree,
  consistencyProof,
  inclusionProof,
  leafHash,
  nodeHash,
  verifyConsistency,
  verifyInclusion,
} from '../../src/audit-chain/merkle.js';
import { checkpointText, formatNote, noteKeyId, signNote, ED25519 } from '../../src/audit-chain/note.js';

/** RFC 9162 §2.1.1–2.1.4 written out as the RFC states them, recursively, over a list of leaves. */
const H = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const k = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);
function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return H();
  if (d.length === 1) return H(Buffer.from([0]), d[0]!);
  return H(Buffer.from([1]), mth(d.slice(0, k(d.length))), mth(d.slice(k(d.length))));
}
function path(m: number, d: Buffer[]): Buffer[] {
  if (d.length === 1) return [];
  const s = k(d.length);
  return m < s ? [...path(m, d.slice(0, s)), mth(d.slice(s))] : [...path(m - s, d.slice(s)), mth(d.slice(0, s))];
}
function subproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const s = k(d.length);
  return m <= s
    ? [...subproof(m, d.slice(0, s), b), mth(d.slice(s))]
    : [...subproof(m - s, d.slice(s), false), mth(d.slice(0, s))];
}

const entryHash = (i: number) => createHash('sha256').update(`entry ${i}`).digest('hex');
const data = Array.from({ length: 70 }, (_, i) => Buffer.from(entryHash(i), 'hex'));
const tree = new MemoryTree();
for (let i = 0; i < data.length; i++) tree.append(leafHash(entryHash(i)));
const flip = (b: Buffer) => Buffer.concat([Buffer.from([b[0]! ^ 1]), b.subarray(1)]);

describe('the Merkle tree (RFC 9162 §2.1)', () => {
  it('hashes leaves and nodes with their domain bytes', () => {
    expect(leafHash(entryHash(0))).toEqual(H(Buffer.from([0]), data[0]!));
    expect(nodeHash(data[0]!, data[1]!)).toEqual(H(Buffer.from([1]), data[0]!, data[1]!));
  });

  it('an appended tree has the RFC root at every size, and the RFC audit path for every leaf', () => {
    for (let n = 1; n <= data.length; n++) {
      const d = data.slice(0, n);
      const root = mth(d);
      expect(tree.root(n).equals(root), `root at ${n}`).toBe(true);
      for (let m = 0; m < n; m++) {
        const p = inclusionProof(tree.nodes, m, n);
        expect(p, `path of ${m} in ${n}`).toEqual(path(m, d));
        expect(verifyInclusion(leafHash(entryHash(m)), m, n, p, root)).toBe(true);
      }
    }
  });

  it('makes the RFC consistency proof for every pair of sizes, and it verifies', () => {
    for (let n = 1; n <= 40; n++) {
      for (let m = 1; m <= n; m++) {
        const p = consistencyProof(tree.nodes, m, n);
        expect(p, `${m} → ${n}`).toEqual(subproof(m, data.slice(0, n), true));
        expect(verifyConsistency(m, n, tree.root(m), tree.root(n), p), `${m} → ${n}`).toBe(true);
      }
    }
  });

  it('refuses an inclusion proof with a changed leaf, hash, index or size, or one hash short', () => {
    const n = 53;
    const m = 20;
    const p = inclusionProof(tree.nodes, m, n);
    const root = tree.root(n);
    const leaf = leafHash(entryHash(m));
    expect(verifyInclusion(leafHash(entryHash(m + 1)), m, n, p, root)).toBe(false);
    expect(verifyInclusion(leaf, m, n, [p[0]!, flip(p[1]!), ...p.slice(2)], root)).toBe(false);
    expect(verifyInclusion(leaf, m + 1, n, p, root)).toBe(false);
    // (a size near n can share the path's shape: the checkpoint signs the size with its root)
    expect(verifyInclusion(leaf, m, n * 2, p, root)).toBe(false);
    expect(verifyInclusion(leaf, m, n, p.slice(0, -1), root)).toBe(false);
    expect(verifyInclusion(leaf, m, n, [...p, p[0]!], root)).toBe(false);
    expect(verifyInclusion(leaf, n, n, p, root)).toBe(false);
  });

  it('refuses a consistency proof between trees that are not prefixes, or with a changed hash', () => {
    const other = new MemoryTree();
    for (let i = 0; i < 30; i++) other.append(leafHash(entryHash(i === 7 ? 1000 : i)));
    const p = consistencyProof(tree.nodes, 13, 30);
    expect(verifyConsistency(13, 30, tree.root(13), tree.root(30), p)).toBe(true);
    // a history that changed entry 7 after size 13 was seen: its size-30 root is not consistent
    expect(verifyConsistency(13, 30, tree.root(13), other.root(30), p)).toBe(false);
    expect(verifyConsistency(13, 30, tree.root(13), other.root(30), consistencyProof(other.nodes, 13, 30))).toBe(false);
    expect(verifyConsistency(13, 30, tree.root(13), tree.root(30), [flip(p[0]!), ...p.slice(1)])).toBe(false);
    expect(verifyConsistency(13, 60, tree.root(13), tree.root(30), p)).toBe(false);
    expect(verifyConsistency(16, 16, tree.root(16), tree.root(16), [])).toBe(true);
    expect(verifyConsistency(16, 16, tree.root(16), tree.root(16), [tree.root(16)])).toBe(false);
  });

  it('agrees with an implementation no one here wrote: Sigstore’s inclusion check and checkpoint reader', () => {
    const require = createRequire(import.meta.url);
    const { verifyMerkleInclusion } = require('@sigstore/verify/dist/tlog/merkle.js');
    const { LogCheckpoint, verifyCheckpoint } = require('@sigstore/verify/dist/tlog/checkpoint.js');
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const origin = 'appliance.example/audit/test';
    for (const n of [1, 2, 7, 8, 33, 70]) {
      const text = checkpointText({ origin, size: n, root: tree.root(n), extensions: [] });
      const note = formatNote({ text, signatures: [signNote(text, origin, privateKey)] });
      const checkpoint = LogCheckpoint.fromString(text);
      expect(checkpoint.logSize).toBe(BigInt(n));
      for (const m of [0, Math.floor(n / 2), n - 1]) {
        const entry = {
          canonicalizedBody: data[m]!,
          inclusionProof: {
            logIndex: String(m),
            hashes: inclusionProof(tree.nodes, m, n),
            checkpoint: { envelope: note },
          },
        };
        expect(() => verifyMerkleInclusion(entry, checkpoint)).not.toThrow();
        const tlog = { logID: noteKeyId(origin, ED25519, publicKey), baseURL: origin, publicKey };
        expect(verifyCheckpoint(entry, [tlog]).logHash.equals(tree.root(n))).toBe(true);
        const changed = { ...entry, canonicalizedBody: data[m === 0 ? 1 : 0]! };
        expect(() => verifyMerkleInclusion(changed, checkpoint)).toThrow(/root hash does not match/);
      }
    }
  });
});
