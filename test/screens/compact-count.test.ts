import { describe, expect, it } from 'vitest';
import { compact } from '../../screens/usage.js';

describe('compact counts (the overview Count column, usage tokens)', () => {
  it('rounds down, so a count just under a quota never reads as the quota', () => {
    expect(compact(3_999_848)).toBe('3.9M'); // "used 3,999,848 of 4,000,000": not 4M
    expect(compact(4_000_000)).toBe('4M');
    expect(compact(19_999)).toBe('19.9k');
    expect(compact(1_234_567)).toBe('1.2M');
    expect(compact(2_999_999_999)).toBe('2.9G');
    expect(compact(9_999)).toBe('9,999');
    expect(compact(null)).toBe('–');
  });
});
