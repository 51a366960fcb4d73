import { createHash } from 'node:crypto';

/**
 * The Merkle tree over the audit trail, RFC 9162 §2.1 (docs/audit-chain.md, "The tree"): leaf i is
 * the trail's i-th entry (0-based, in `seq` order) and its hash is SHA-256(0x00 || the entry's
 * 32-byte chain hash); an inner node is SHA-256(0x01 || left || right); the tree of n leaves splits
 * at the largest power of two below n.
 *
 * Proofs are made from a `Subtrees` source, which answers the hash of a complete subtree (2^level
 * leaves, aligned): the server reads them from the table it keeps, a verifier never needs them.
 * Sizes and indexes are JavaScript numbers (exact to 2^53), halved with arithmetic rather than bit
 * shifts, which would cut them to 32 bits.
 */

/** The hash of the complete subtree of 2^level leaves that starts at leaf index * 2^level. */
export type Subtrees = (level: number, index: number) => Buffer;

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

/** The hash of the empty tree: SHA-256 of nothing. */
const EMPTY_ROOT = createHash('sha256').digest();

/** A leaf's hash from the entry's chain hash (64 hex digits). */
export function leafHash(entryHashHex: string): Buffer {
  return createHash('sha256').update(LEAF).update(Buffer.from(entryHashHex, 'hex')).digest();
}

export function nodeHash(left: Buffer, right: Buffer): Buffer {
  return createHash('sha256').update(NODE).update(left).update(right).digest();
}

/** The largest power of two strictly below n (n >= 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

const isPowerOfTwo = (n: number) => n > 0 && splitPoint(n + 1) === n;
const log2 = (n: number) => Math.round(Math.log2(n));
const odd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);

/**
 * MTH of the `size` leaves from `start`. As the proofs below use it, `start` is always a multiple
 * of the largest complete subtree that fits, so the range is a few complete subtrees, read whole.
 */
function rangeHash(nodes: Subtrees, start: number, size: number): Buffer {
  if (size === 0) return EMPTY_ROOT;
  if (isPowerOfTwo(size) && start % size === 0) return nodes(log2(size), start / size);
  const k = splitPoint(size);
  return nodeHash(rangeHash(nodes, start, k), rangeHash(nodes, start + k, size - k));
}

/** The root of the tree of the first `size` leaves. */
export const rootHash = (nodes: Subtrees, size: number): Buffer => rangeHash(nodes, 0, size);

/** RFC 9162 §2.1.3.1: the audit path of leaf `index` in the tree of `size` leaves, leaf side first. */
export function inclusionProof(nodes: Subtrees, index: number, size: number): Buffer[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const path: Buffer[] = [];
  // from the root down, the sibling of each subtree the leaf is in; reversed at the end
  let start = 0;
  let n = size;
  let m = index;
  while (n > 1) {
    const k = splitPoint(n);
    if (m < k) {
      path.push(rangeHash(nodes, start + k, n - k));
      n = k;
    } else {
      path.push(rangeHash(nodes, start, k));
      start += k;
      m -= k;
      n -= k;
    }
  }
  return path.reverse();
}

/** RFC 9162 §2.1.4.1: the proof that the tree of `from` leaves is a prefix of the tree of `to`. */
export function consistencyProof(nodes: Subtrees, from: number, to: number): Buffer[] {
  if (!(from >= 1 && from <= to)) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  const path: Buffer[] = [];
  let start = 0;
  let m = from;
  let n = to;
  let whole = true; // SUBPROOF's b: the old tree is the whole of this subtree so far
  while (m !== n) {
    const k = splitPoint(n);
    if (m <= k) {
      path.push(rangeHash(nodes, start + k, n - k));
      n = k;
    } else {
      path.push(rangeHash(nodes, start, k));
      start += k;
      m -= k;
      n -= k;
      whole = false;
    }
  }
  if (!whole) path.push(rangeHash(nodes, start, m));
  return path.reverse();
}

/** RFC 9162 §2.1.3.2: whether `path` proves the leaf `leaf` at `index` in the tree of `size` with root `root`. */
export function verifyInclusion(leaf: Buffer, index: number, size: number, path: Buffer[], root: Buffer): boolean {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2: whether `path` proves the tree (`from`, `fromRoot`) a prefix of (`to`, `toRoot`). */
export function verifyConsistency(from: number, to: number, fromRoot: Buffer, toRoot: Buffer, path: Buffer[]): boolean {
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 1 && from <= to)) return false;
  if (from === to) return path.length === 0 && fromRoot.equals(toRoot);
  const proof = isPowerOfTwo(from) ? [fromRoot, ...path] : path;
  if (proof.length === 0) return false;
  let fn = from - 1;
  let sn = to - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = proof[0]!;
  let sr = proof[0]!;
  for (const c of proof.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return fr.equals(fromRoot) && sr.equals(toRoot) && sn === 0;
}

/**
 * A tree kept in memory, appended one leaf at a time as the server's table is: a verifier that
 * has every entry (an export, a syslog copy) builds one to check a checkpoint's root, and tests
 * make proofs with it. Memory: about two hashes per leaf.
 */
export class MemoryTree {
  /** levels[l][i]: the complete subtree of 2^l leaves at index i */
  private readonly levels: Buffer[][] = [[]];

  get size(): number {
    return this.levels[0]!.length;
  }

  /** Adds a leaf (its leaf hash) and every complete subtree it closes, as the server's writer does. */
  append(leaf: Buffer): void {
    let level = 0;
    let node = leaf;
    for (;;) {
      const row = (this.levels[level] ??= []);
      row.push(node);
      const i = row.length - 1;
      if (!odd(i)) return;
      node = nodeHash(row[i - 1]!, node);
      level += 1;
    }
  }

  readonly nodes: Subtrees = (level, index) => {
    const node = this.levels[level]?.[index];
    if (node === undefined) throw new RangeError(`no complete subtree ${level}/${index} in a tree of ${this.size}`);
    return node;
  };

  root(size = this.size): Buffer {
    return rootHash(this.nodes, size);
  }
}
