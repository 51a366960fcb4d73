// Every edit the bundle makes to a dependency's source, as data. The plugin below applies them;
// test/build/dependency-edits.test.ts fails when one no longer applies to the installed version;
// docs/dependency-edits.md gives each one's reason, measured gain and the upstream change to
// watch for, so that it can be dropped.
import { readFileSync, realpathSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed dependencies (the real path: node_modules may be a link to a shared install). */
export const NODE_MODULES = realpathSync(fileURLToPath(new URL('../node_modules', import.meta.url)));

/**
 * @typedef {object} DependencyEdit
 * @property {string} name the edit's heading in docs/dependency-edits.md
 * @property {string} file the edited file, relative to node_modules, with `/`
 * @property {[string, string][]} edits each find must occur exactly once in the file
 * @property {string} [prepend] code put before the edited file's own
 */

const graphemesModule = JSON.stringify(fileURLToPath(new URL('../src/text/graphemes.ts', import.meta.url)));
const LAZY_SEGMENTER = `import { lazySegmenter as __lazySegmenter } from ${graphemesModule};\n`;
/** the segmenter made when `file` loads, made on first use instead */
const lazySegmenter = (file, find) => ({
  name: 'lazy-unicode-data',
  file,
  edits: [[find, find.replace('new Intl.Segmenter(', '__lazySegmenter(')]],
  prepend: LAZY_SEGMENTER,
});

/** @type {DependencyEdit[]} the edits of every bundle of the dashboard's code */
export const DEPENDENCY_EDITS = [
  {
    name: 'yoga-without-fetch',
    file: 'yoga-layout/dist/binaries/yoga-wasm-base64-esm.js',
    edits: [
      ['function ya(){return w||"function"!=typeof fetch?', 'function ya(){return true?'],
    ],
  },
  {
    name: 'ink-measure-cache-bounded',
    file: 'ink/build/measure-text.js',
    edits: [['cache.set(text, dimensions);', 'if (cache.size >= 2000) cache.clear(); cache.set(text, dimensions);']],
  },
  {
    name: 'ink-wrap-cache-bounded',
    file: 'ink/build/wrap-text.js',
    edits: [
      ['const cache = {};', 'let cache = {}; let cacheSize = 0;'],
      [
        'cache[cacheKey] = wrappedText;',
        'if (++cacheSize > 2000) { cache = {}; cacheSize = 1; } cache[cacheKey] = wrappedText;',
      ],
    ],
  },
  {
    name: 'lazy-unicode-data',
    file: 'string-width/index.js',
    prepend: LAZY_SEGMENTER,
    edits: [
      ['const segmenter = new Intl.Segmenter();', 'const segmenter = __lazySegmenter();'],
      [
        'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;',
        'let rgiEmojiMade; const rgiEmojiRegex = { test: (text) => (rgiEmojiMade ??= /^\\p{RGI_Emoji}$/v).test(text) };',
      ],
    ],
  },
  lazySegmenter('wrap-ansi/node_modules/string-width/index.js', 'const segmenter = new Intl.Segmenter();'),
  lazySegmenter(
    'slice-ansi/tokenize-ansi.js',
    "const GRAPHEME_SEGMENTER = new Intl.Segmenter(undefined, {granularity: 'grapheme'});",
  ),
  lazySegmenter(
    '@alcalzone/ansi-tokenize/build/tokenize.js',
    'const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });',
  ),
];

/** @type {DependencyEdit[]} the further edits of the dashboard's CommonJS bundle (no top-level await) */
export const COMMONJS_EDITS = [
  {
    name: 'yoga-without-top-level-await',
    file: 'yoga-layout/dist/src/index.js',
    edits: [
      [
        'const Yoga = wrapAssembly(await loadYoga());',
        'const Yoga = {}; export const yogaReady = loadYoga().then((lib) => { Object.assign(Yoga, wrapAssembly(lib)); });',
      ],
    ],
  },
  {
    name: 'ink-without-devtools',
    file: 'ink/build/reconciler.js',
    edits: [
      [
        "await import('./devtools.js');",
        "throw Object.assign(new Error('React devtools are not in the dashboard bundle'), { code: 'ERR_MODULE_NOT_FOUND' });",
      ],
      ['? await loadPackageJson()', "? { name: 'ink', version: undefined }"],
    ],
  },
];

/** How many times `find` occurs in `code`. */
export const occurrences = (code, find) => code.split(find).length - 1;

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * An esbuild plugin applying `edits`. A file whose finds do not each occur exactly once fails the
 * build: the dependency moved on, and the edit must be looked at (docs/dependency-edits.md).
 */
export function dependencyEdits(edits) {
  const byFile = new Map(edits.map((e) => [e.file, e]));
  if (byFile.size !== edits.length) throw new Error('two dependency edits of one file: make them one');
  // every file whose path ends like an edited one; the exact path relative to node_modules decides
  const tail = (file) => file.split('/node_modules/').at(-1);
  const filter = new RegExp(
    `[\\\\/](?:${edits.map((e) => escape(tail(e.file)).replaceAll('/', '[\\\\/]')).join('|')})$`,
  );
  return {
    name: 'dependency-edits',
    setup(b) {
      b.onLoad({ filter }, (args) => {
        const edit = byFile.get(relative(NODE_MODULES, args.path).split(sep).join('/'));
        if (!edit) return undefined;
        const code = readFileSync(args.path, 'utf8');
        const broken = edit.edits.filter(([find]) => occurrences(code, find) !== 1);
        if (broken.length > 0)
          return {
            errors: [
              {
                text: `dependency edit ${edit.name} no longer applies to node_modules/${edit.file} (docs/dependency-edits.md)`,
              },
            ],
          };
        const edited = edit.edits.reduce((c, [find, replace]) => c.replace(find, () => replace), code);
        return { contents: (edit.prepend ?? '') + edited, loader: 'js' };
      });
    },
  };
}
