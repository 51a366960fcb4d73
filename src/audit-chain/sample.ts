import { createHash } from 'node:crypto';

/**
 * The random sample of `audit sample` (docs/audit-chain.md, "Proof files"), drawn from a seed that
 * the proof file states, so that anyone can draw it again and see that these entries, and no
 * others chosen after a look, are the sample: draw k (k = 0, 1, …) is the first 8 bytes of
 * SHA-256(seed || k as 8 bytes big-endian), read as an unsigned big-endian integer x; x is refused
 * when x >= 2^64 - (2^64 mod population) (so that every leaf is equally likely), else it picks leaf
 * `first + x mod population`; a leaf picked already is skipped; drawing stops at `size` leaves.
 */

/** A sample larger than this is refused: an auditor's test is a few dozen entries. */
export const MAX_SAMPLE = 10_000;

const TWO_64 = 1n << 64n;

/** The leaf indexes of the sample, ascending. `size` must be at most `population` and MAX_SAMPLE. */
export function sampleLeaves(seedHex: string, first: number, population: number, size: number): number[] {
  if (!/^([0-9a-f]{2}){16,64}$/.test(seedHex)) throw new RangeError('the seed is not 16 to 64 bytes of lowercase hex');
  if (!(Number.isSafeInteger(size) && size >= 0 && size <= MAX_SAMPLE && size <= population))
    throw new RangeError(`cannot draw ${size} of ${population}`);
  const seed = Buffer.from(seedHex, 'hex');
  const pop = BigInt(population);
  const limit = TWO_64 - (TWO_64 % pop);
  const picked = new Set<number>();
  const counter = Buffer.alloc(8);
  for (let k = 0n; picked.size < size; k++) {
    counter.writeBigUInt64BE(k);
    const x = createHash('sha256').update(seed).update(counter).digest().readBigUInt64BE(0);
    if (x >= limit) continue;
    picked.add(first + Number(x % pop));
  }
  return [...picked].sort((a, b) => a - b);
}
