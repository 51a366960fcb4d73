import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import stringWidth from 'string-width';
import { displayWidth, NARROW_CLASS } from '../../src/text/display-width.js';

// every code point of the fast path's character class
const narrowCodePoints: number[] = [];
for (const m of NARROW_CLASS.matchAll(/\\u([0-9A-F]{4})(?:-\\u([0-9A-F]{4}))?/g)) {
  const from = parseInt(m[1], 16);
  const to = m[2] ? parseInt(m[2], 16) : from;
  for (let cp = from; cp <= to; cp++) narrowCodePoints.push(cp);
}

describe('displayWidth', () => {
  it('every character of its fast path is one column for string-width, alone and after any other', () => {
    expect(narrowCodePoints.length).toBeGreaterThan(700);
    for (const cp of narrowCodePoints) {
      const ch = String.fromCodePoint(cp);
      expect([cp.toString(16), stringWidth(ch)]).toEqual([cp.toString(16), 1]);
      // no character of the set joins the one before it into one grapheme
      expect([cp.toString(16), stringWidth(`a${ch}…${ch}`)]).toEqual([cp.toString(16), 4]);
    }
  });

  it('agrees with string-width on any text, styled or not', () => {
    const pool = [
      'a',
      ' ',
      '~',
      'é',
      'ß',
      'Ł',
      '–',
      '…',
      '“',
      '→',
      '─',
      '●',
      '▲',
      '✓',
      '✕',
      '漢',
      '😀',
      'e\u0301',
      '\u200d',
      '\u00ad',
      '\t',
      '\u0007',
      '\x1b[31m',
      '\x1b[39m',
      '\x1b[1m',
      '\x1b[7m',
      '\u009b4m',
      '\u25fd',
      '\ufe0f',
      '\u2028',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pool, ...narrowCodePoints.slice(0, 200).map((c) => String.fromCodePoint(c))), {
          maxLength: 40,
        }),
        (parts) => {
          const text = parts.join('');
          expect(displayWidth(text)).toBe(stringWidth(text));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
