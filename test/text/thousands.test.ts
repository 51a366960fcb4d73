import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { thousands } from '../../src/text/thousands.js';

describe('thousands', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1000, '1,000'],
    [-1234567, '-1,234,567'],
    [Number.MAX_SAFE_INTEGER, '9,007,199,254,740,991'],
    [1.5, '1.5'],
  ])('%d as %s', (v, text) => {
    expect(thousands(v)).toBe(text);
  });

  it("writes every number as toLocaleString('en-US') does", () => {
    fc.assert(
      fc.property(fc.oneof(fc.maxSafeInteger(), fc.integer(), fc.double()), (v) => {
        expect(thousands(v)).toBe(v.toLocaleString('en-US'));
      }),
      { numRuns: 2000 },
    );
    expect(thousands(-0)).toBe((-0).toLocaleString('en-US'));
  });
});
