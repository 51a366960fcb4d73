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

  it('keeps the options of the segmenter it stands in for: word segmentation is never done as graphemes', () => {
    const words = lazySegmenter('en', { granularity: 'word' });
    expect(plain(words.segment('ab cd'))).toEqual([
      ['ab', 0],
      [' ', 2],
      ['cd', 3],
    ]);
  });
});
