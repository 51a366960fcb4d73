import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { graphemes, lazySegmenter } from '../../src/text/graphemes.js';

const intl = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const plain = (segments: Iterable<Intl.SegmentData>) => [...segments].map(({ segment, index }) => [segment, index]);

describe('graphemes', () => {
  it('segments any text as Intl.Segmenter does: ASCII (controls and CR LF included) and beyond', () => {
    const pool = [
      'a',
      ' ',
      '~',
      '\r',
      '\n',
      '\r\n',
      '\t',
      '\0',
      '\x1b',
      '\x1b[31m',
      '\x7f',
      'é',
      'e\u0301',
      '漢',
      '😀',
      '👩‍💻',
      '\u200d',
      '\ufe0f',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pool), { maxLength: 30 }),
        fc.integer({ min: -2, max: 40 }),
        (parts, at) => {
          const text = parts.join('');
          expect(plain(graphemes(text))).toEqual(plain(intl.segment(text)));
          const mine = graphemes(text).containing(at);
          const theirs = intl.segment(text).containing(at);
          expect(mine && [mine.segment, mine.index, mine.input]).toEqual(
            theirs && [theirs.segment, theirs.index, theirs.input],
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('segments the symbol blocks it handles itself as Intl.Segmenter does, every code point of them, in any mix', () => {
    const ranges: [number, number][] = [
      [0x00, 0x2ff],
      [0x2000, 0x200b],
      [0x200e, 0x20cf],
      [0x2100, 0x2bff],
    ];
    const chars = ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => String.fromCharCode(a + i)));
    // each one beside a letter, a box-drawing rule and itself
    for (const c of chars) {
      for (const text of [`a${c}b`, `${c}─${c}`, `${c}${c}`]) {
        expect(plain(graphemes(text))).toEqual(plain(intl.segment(text)));
      }
    }
    // and random mixes of them with what must still go to Intl (combining marks, joiners, emoji)
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...chars), fc.constantFrom('\u0301', '\u20d7', '\u200d', '\ufe0f', '😀')), {
          maxLength: 12,
        }),
        (parts) => {
          const text = parts.join('');
          expect(plain(graphemes(text))).toEqual(plain(intl.segment(text)));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('keeps the options of the segmenter it stands in for: word segmentation is never done as graphemes', () => {
    const words = lazySegmenter('en', { granularity: 'word' });
    expect(plain(words.segment('ab cd'))).toEqual([
      ['ab', 0],
      [' ', 2],
      ['cd', 3],
    ]);
  });
});
