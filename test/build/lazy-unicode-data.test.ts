import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import fc from 'fast-check';
import stringWidth from 'string-width';
import sliceAnsi from 'slice-ansi';
import wrapAnsi from 'wrap-ansi';
import { tokenize } from '@alcalzone/ansi-tokenize';
// @ts-expect-error: a plain .mjs build script without types
import { BUNDLE_OPTIONS } from '../../scripts/bundle-options.mjs';
// @ts-expect-error: a plain .mjs build script without types
import { DEPENDENCY_EDITS, dependencyEdits } from '../../scripts/dependency-edits.mjs';

/**
 * The bundle's edits to string-width, slice-ansi, wrap-ansi and ansi-tokenize
 * (scripts/dependency-edits.mjs, lazy-unicode-data): the same answers as the packages as published,
 * and no Intl.Segmenter or emoji expression made before a text needs one.
 */
type Patched = {
  stringWidth: typeof stringWidth;
  sliceAnsi: typeof sliceAnsi;
  wrapAnsi: typeof wrapAnsi;
  tokenize: typeof tokenize;
};

const made = { segmenters: 0 };
const RealSegmenter = Intl.Segmenter;
const setSegmenter = (s: typeof Intl.Segmenter) =>
  Object.defineProperty(Intl, 'Segmenter', { value: s, configurable: true, writable: true });
let dir: string;
let patched: Patched;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aa-lazy-unicode-'));
  const out = await build({
    stdin: {
      contents:
        "export { default as stringWidth } from 'string-width'; export { default as sliceAnsi } from 'slice-ansi'; export { default as wrapAnsi } from 'wrap-ansi'; export { tokenize } from '@alcalzone/ansi-tokenize';",
      resolveDir: process.cwd(),
    },
    ...BUNDLE_OPTIONS,
    plugins: [dependencyEdits(DEPENDENCY_EDITS.filter((e: { name: string }) => e.name === 'lazy-unicode-data'))],
    write: false,
    logLevel: 'silent',
  });
  expect(out.warnings).toEqual([]);
  const file = join(dir, 'patched.mjs');
  writeFileSync(file, out.outputFiles![0].text);
  // counts the segmenters made from here on
  setSegmenter(
    class extends RealSegmenter {
      constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
        super(...args);
        made.segmenters++;
      }
    },
  );
  patched = (await import(pathToFileURL(file).href)) as Patched;
});

afterAll(() => {
  setSegmenter(RealSegmenter);
  rmSync(dir, { recursive: true, force: true });
});

describe("the bundle's lazy Unicode data", () => {
  it('makes no segmenter on load, nor for ASCII text with colour codes', () => {
    expect(made.segmenters).toBe(0);
    expect(patched.stringWidth('\x1b[31mTeam share\x1b[39m')).toBe(10);
    expect(patched.tokenize('\x1b[1;31mok\x1b[0m').length).toBeGreaterThan(2);
    expect(patched.sliceAnsi('\x1b[31mabcdef\x1b[39m', 1, 3)).toBe(sliceAnsi('\x1b[31mabcdef\x1b[39m', 1, 3));
    expect(made.segmenters).toBe(0);
  });

  it("gives the published packages' answers for any text, emoji and joined graphemes included", () => {
    const pool = [
      'a',
      ' ',
      'Z',
      '\r\n',
      '\t',
      'é',
      'e\u0301',
      '漢',
      '😀',
      '👩‍💻',
      '1️⃣',
      '🇩🇪',
      '\u200d',
      '\ufe0f',
      '\x1b[31m',
      '\x1b[39m',
      '\x1b[1;4m',
      '\x1b[0m',
      '\x1b]8;;https://x\x07',
      '\x1b]8;;\x07',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pool), { maxLength: 24 }),
        fc.nat(12),
        fc.nat(12),
        fc.integer({ min: 1, max: 8 }),
        (parts, a, b, cols) => {
          const text = parts.join('');
          expect(patched.stringWidth(text)).toBe(stringWidth(text));
          expect(patched.tokenize(text)).toEqual(tokenize(text));
          expect(patched.sliceAnsi(text, Math.min(a, b), Math.max(a, b))).toBe(
            sliceAnsi(text, Math.min(a, b), Math.max(a, b)),
          );
          expect(patched.wrapAnsi(text, cols, { hard: true })).toBe(wrapAnsi(text, cols, { hard: true }));
        },
      ),
      { numRuns: 1500 },
    );
    expect(made.segmenters).toBeGreaterThan(0);
  });
});
