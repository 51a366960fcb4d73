/**
 * Grapheme segmentation that loads ICU only for text that needs it. The first Intl object a
 * process makes loads ICU's data, a cost every start paid (docs/dependency-edits.md,
 * lazy-unicode-data). string-width, slice-ansi and ansi-tokenize each made one when loaded, and the
 * frame builder segments every colour code it meets, so every start paid it before its first
 * frame. In ASCII every character is a grapheme of its own but for CR LF (UAX #29, GB3-GB5 and
 * GB999), and so in the symbol blocks below: such text is segmented here without ICU; any other
 * text goes to Intl.Segmenter, made on first use. The bundle gives the dependencies these
 * segmenters instead of their own (scripts/build.mjs).
 */

type Options = Intl.SegmenterOptions | undefined;

/**
 * Text whose every UTF-16 unit is a grapheme of its own (CR LF aside): ASCII and Latin up to
 * U+02FF, general punctuation but the joiners U+200C-U+200D, and the symbol blocks U+2100-U+2BFF
 * (arrows, box drawing, geometric shapes, dingbats…) that the dashboard draws as badges, rules and
 * marks. None of these is a UAX #29 Extend, ZWJ, SpacingMark, Prepend, Hangul or regional
 * indicator, so no rule joins two of them; U+0300-U+036F and U+20D0-U+20FF, the combining marks
 * near them, are left out. The overview's first frame ("✕ CRIT", "▲ WARN", "·", "…") loaded ICU's
 * data for these alone (docs/performance.md).
 */
const ONE_UNIT_GRAPHEMES = /^[\0-\u02FF\u2000-\u200B\u200E-\u20CF\u2100-\u2BFF]*$/;

function isSimple(text: string): boolean {
  return ONE_UNIT_GRAPHEMES.test(text) && !text.includes('\r\n');
}

function oneUnitSegments(input: string): Intl.Segments {
  const data = (index: number): Intl.SegmentData => ({ segment: input[index], index, input });
  return {
    containing(codeUnitIndex = 0) {
      const index = Math.trunc(Number(codeUnitIndex) || 0);
      return index >= 0 && index < input.length ? data(index) : undefined;
    },
    *[Symbol.iterator]() {
      for (let index = 0; index < input.length; index++) yield data(index);
    },
  } as Intl.Segments;
}

export interface LazySegmenter {
  segment(text: string): Intl.Segments;
}

/** A stand-in for `new Intl.Segmenter(locales, options)` with grapheme granularity. */
export function lazySegmenter(locales?: string | string[], options?: Options): LazySegmenter {
  let made: Intl.Segmenter | undefined;
  const graphemeGranularity = (options?.granularity ?? 'grapheme') === 'grapheme';
  return {
    segment(text: string) {
      if (graphemeGranularity && isSimple(text)) return oneUnitSegments(text);
      made ??= new Intl.Segmenter(locales, options);
      return made.segment(text);
    },
  };
}

const shared = lazySegmenter(undefined, { granularity: 'grapheme' });

export function graphemes(text: string): Intl.Segments {
  return shared.segment(text);
}
