import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Plugin } from 'esbuild';
import fc from 'fast-check';
import type stringWidth from 'string-width';
import type sliceAnsi from 'slice-ansi';
import type wrapAnsi from 'wrap-ansi';
import type { tokenize } from '@alcalzone/ansi-tokenize';
// @ts-expect-error: a plain .mjs build script without types
import { BUNDLE_OPTIONS } from '../../scripts/bundle-options.mjs';
// @ts-expect-error: a plain .mjs build script without types
import { DEPENDENCY_PATCHES, NODE_MODULES } from '../../scripts/dependency-edits.mjs';
import { publishedSources } from './patches.js';

/**
 * The lazy-unicode-data patches of string-width, slice-ansi, wrap-ansi's string-width and
 * ansi-tokenize (patches/, docs/dependency-edits.md): the same answers as the packages as
 * published (the patches taken back out), and no Intl.Segmenter or emoji expression made before
 * a text needs one.
 */
type Packages = {
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
let patched: Packages;
let published: Packages;

/** the four packages bundled, as installed (patched) or with `plugins` */
async function bundled(name: string, plugins: Plugin[]): Promise<Packages> {
  const out = await build({
    stdin: {
      contents:
        "export { default as stringWidth } from 'string-width'; export { default as sliceAnsi } from 'slice-ansi'; export { default as wrapAnsi } from 'wrap-ansi'; export { tokenize } from '@alcalzone/ansi-tokenize';",
      resolveDir: process.cwd(),
    },
    ...BUNDLE_OPTIONS,
    plugins,
    write: false,
    logLevel: 'silent',
  });
  expect(out.warnings).toEqual([]);
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, out.outputFiles![0].text);
  return (await import(pathToFileURL(file).href)) as Packages;
}

/** the lazy-unicode-data files as published */
const asPublished = (): Plugin => {
  const sources = new Map<string, string>();
  for (const { patch, files } of DEPENDENCY_PATCHES as { patch: string; files: Record<string, string> }[])
    if (Object.values(files).includes('lazy-unicode-data'))
      for (const [file, text] of publishedSources(patch)) sources.set(file, text);
  return {
    name: 'as-published',
    setup(b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/]/ }, (args) => {
        const contents = sources.get(
          relative(NODE_MODULES as string, args.path)
            .split('\\')
            .join('/'),
        );
        return contents === undefined ? undefined : { contents, loader: 'js' };
      });
    },
  };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aa-lazy-unicode-'));
  published = await bundled('published', [asPublished()]);
  // counts the segmenters made from here on
  setSegmenter(
    class extends RealSegmenter {
      constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
        super(...args);
        made.segmenters++;
      }
    },
  );
  patched = await bundled('patched', []);
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
    expect(patched.sliceAnsi('\x1b[31mabcdef\x1b[39m', 1, 3)).toBe('\x1b[31mbc\x1b[39m');
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
          expect(patched.stringWidth(text)).toBe(published.stringWidth(text));
          expect(patched.tokenize(text)).toEqual(published.tokenize(text));
          expect(patched.sliceAnsi(text, Math.min(a, b), Math.max(a, b))).toBe(
            published.sliceAnsi(text, Math.min(a, b), Math.max(a, b)),
          );
          expect(patched.wrapAnsi(text, cols, { hard: true })).toBe(published.wrapAnsi(text, cols, { hard: true }));
        },
      ),
      { numRuns: 1500 },
    );
    expect(made.segmenters).toBeGreaterThan(0);
  });
});
