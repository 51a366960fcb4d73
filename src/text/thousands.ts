/**
 * A number as en-US writes it ("12,345"), without Intl for a whole number: the first
 * toLocaleString of a process loads ICU's data, which the overview's first frame paid for its
 * counts (docs/performance.md). Other numbers (fractions, huge ones) still go to Intl.
 */
export function thousands(v: number): string {
  if (!Number.isSafeInteger(v)) return v.toLocaleString('en-US');
  const digits = String(Math.abs(v));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let at = out.length; at < digits.length; at += 3) out += `,${digits.slice(at, at + 3)}`;
  return v < 0 || Object.is(v, -0) ? `-${out}` : out;
}
