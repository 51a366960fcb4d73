/** A small seeded PRNG (mulberry32) so demo data is the same for the same seed. */
export interface Rng {
  /** uniform in [0, 1) */
  next(): number;
  /** integer in [min, max] */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** picks by weight: [[item, weight], …] */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  chance(p: number): boolean;
  /** an opaque id like ids.ts makes, but reproducible */
  id(prefix: string): string;
  /** an independent stream: draws a variable number of times (rejection sampling) go there */
  fork(): Rng;
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[Math.floor(next() * items.length)],
    weighted: (items) => {
      let total = 0;
      for (const [, w] of items) total += w;
      let r = next() * total;
      for (const [item, w] of items) {
        r -= w;
        if (r < 0) return item;
      }
      return items[items.length - 1][0];
    },
    chance: (p) => next() < p,
    id: (prefix) => {
      let out = '';
      for (let i = 0; i < 16; i++) out += ALPHABET[Math.floor(next() * 32)];
      return `${prefix}_${out}`;
    },
    fork: () => createRng(Math.floor(next() * 4294967296)),
  };
}
