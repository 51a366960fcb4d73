// The esbuild settings of the CLI bundle: production React, the dependency edits below and the
// dashboard's frame builder. Used by scripts/build.mjs, and by the start benchmark and the
// bundle test, so they measure and check exactly what ships.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inkFrame } from './ink-frame.mjs';

/**
 * An esbuild plugin that edits one dependency file as it is bundled: each [find, replace] must
 * be found, else the file is bundled as it is with `changed` as a warning (the dependency moved on
 * and the patch needs looking at; the product still works, only slower or larger).
 */
export function sourcePatch(name, file, edits, changed) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter: file }, (args) => {
        const code = readFileSync(args.path, 'utf8');
        if (!edits.every(([find]) => code.includes(find)))
          return { contents: code, loader: 'js', warnings: [{ text: changed }] };
        return { contents: edits.reduce((c, [find, replace]) => c.replace(find, replace), code), loader: 'js' };
      });
    },
  };
}

// Ink's layout engine (yoga-layout) embeds its WebAssembly as a data: URL and, wherever a global
// fetch exists, reads it with fetch(): on Node that loads Node's internal undici first, ~10 ms
// of every dashboard start. Its own synchronous decoder does the same job without it, and
// decodes with Buffer instead of atob and a loop over the 72 KB (2.0 -> 0.24 ms).
export const yogaWithoutFetch = sourcePatch(
  'yoga-without-fetch',
  /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/,
  [
    ['function ya(){return w||"function"!=typeof fetch?', 'function ya(){return true?'],
    [
      'var b=xa(a.slice(37)),c=new Uint8Array(b.length);for(a=0;a<b.length;++a)c[a]=b.charCodeAt(a);var d=c',
      'var d=new Uint8Array(Buffer.from(a.slice(37),"base64"))',
    ],
  ],
  'yoga-layout changed: its wasm is read with fetch() or decoded with atob again (slower start)',
);

// Ink keeps the size of every text it ever laid out in a module-level Map that is never cleared:
// a dashboard showing new rows all day grows by that much (test/bench/RESULTS.md,
// dashboard-memory). Bounded here: cleared when it holds 2,000 texts (a frame has ~100).
export const inkMeasureBounded = sourcePatch(
  'ink-measure-cache-bounded',
  /ink[\\/]build[\\/]measure-text\.js$/,
  [['cache.set(text, dimensions);', 'if (cache.size >= 2000) cache.clear(); cache.set(text, dimensions);']],
  'ink changed: its text measure cache is unbounded again',
);

// Ink also keeps every text it cut or wrapped to fit (wrap-text.js, a plain object never
// emptied): a long key-hint line or summary that changes with the data adds one each time.
export const inkWrapBounded = sourcePatch(
  'ink-wrap-cache-bounded',
  /ink[\\/]build[\\/]wrap-text\.js$/,
  [
    ['const cache = {};', 'let cache = {}; let cacheSize = 0;'],
    [
      'cache[cacheKey] = wrappedText;',
      'if (++cacheSize > 2000) { cache = {}; cacheSize = 1; } cache[cacheKey] = wrappedText;',
    ],
  ],
  'ink changed: its wrap cache is unbounded again',
);

// Unicode data loaded at start for text the dashboard rarely shows: string-width, slice-ansi and
// ansi-tokenize each make an Intl.Segmenter when loaded (the first Intl object loads ICU's data,
// 15–30 ms), and string-width builds its \p{RGI_Emoji} expression (14 ms). They get
// src/text/graphemes.ts's segmenter instead (ASCII without ICU, the Intl one made on first use),
// and the expression is built the first time a character needs it.
const LAZY_SEGMENTER_FILES =
  /node_modules[\\/](?:string-width[\\/]index|wrap-ansi[\\/]node_modules[\\/]string-width[\\/]index|slice-ansi[\\/]tokenize-ansi|@alcalzone[\\/]ansi-tokenize[\\/]build[\\/]tokenize)\.js$/;
const RGI_EMOJI = [
  'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;',
  'let rgiEmojiMade; const rgiEmojiRegex = { test: (text) => (rgiEmojiMade ??= /^\\p{RGI_Emoji}$/v).test(text) };',
];
const graphemesModule = JSON.stringify(fileURLToPath(new URL('../src/text/graphemes.ts', import.meta.url)));
export const lazyUnicodeData = {
  name: 'lazy-unicode-data',
  setup(b) {
    b.onLoad({ filter: LAZY_SEGMENTER_FILES }, (args) => {
      const code = readFileSync(args.path, 'utf8');
      let lazy = code.replace(/new Intl\.Segmenter\(([^()]*)\)/g, '__lazySegmenter($1)');
      const changed = [];
      if (lazy === code) changed.push('its segmenter loads ICU at start again');
      if (lazy.includes(RGI_EMOJI[0])) lazy = lazy.replace(...RGI_EMOJI);
      else if (lazy.includes('\\p{RGI_Emoji}$/v')) changed.push('its emoji expression is built at start again');
      const warnings = changed.map((what) => ({ text: `${args.path} changed: ${what} (slower start)` }));
      return {
        contents: `import { lazySegmenter as __lazySegmenter } from ${graphemesModule};\n${lazy}`,
        loader: 'js',
        warnings,
      };
    });
  },
};

// Node built-ins the dashboard's first frame does not use, loaded when first called instead of at
// start (process.getBuiltinModule, Node 20.16+): undici's HTTP/2 client, with Node's http2, tls
// and crypto behind it (3.6 ms; only used with allowH2, which the client never sets), and
// terminal-size's child_process (0.5 ms; it runs tput only when the output is not a terminal).
// The HTTP/2 constants undici reads at load are written out; test/build checks them against
// Node's own.
export const HTTP2_CONSTANTS = {
  HTTP2_HEADER_AUTHORITY: ':authority',
  HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_SCHEME: ':scheme',
  HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
  HTTP2_HEADER_EXPECT: 'expect',
  HTTP2_HEADER_STATUS: ':status',
  HTTP2_HEADER_PROTOCOL: ':protocol',
  NGHTTP2_REFUSED_STREAM: 7,
  NGHTTP2_CANCEL: 8,
};
// Node's assert (0.6 ms: its AssertionError, colours and call tracker) is required at load by
// undici and signal-exit, which only check conditions on the way: the check is a comparison, and
// the module is loaded when an assertion fails, with Node's own error and message, or when a method
// not written here is used. Its methods are taken from the Node that builds.
const ASSERT_METHODS = Object.keys(createRequire(import.meta.url)('node:assert'));
const LAZY_ASSERT = `'use strict';
const real = () => process.getBuiltinModule('node:assert');
function assert(value) { if (!value) Reflect.apply(real(), undefined, arguments); }
assert.ok = assert;
assert.equal = function equal(a, b) { if (a != b && !(a !== a && b !== b)) Reflect.apply(real().equal, undefined, arguments); };
for (const name of ${JSON.stringify(ASSERT_METHODS)}) if (!Object.hasOwn(assert, name)) Object.defineProperty(assert, name, { get: () => real()[name], enumerable: true });
module.exports = assert;`;
const assertOnFailure = {
  name: 'assert-on-failure',
  setup(b) {
    b.onResolve({ filter: /^(node:)?assert$/ }, () => ({ path: 'assert', namespace: 'assert-on-failure' }));
    b.onLoad({ filter: /.*/, namespace: 'assert-on-failure' }, () => ({ contents: LAZY_ASSERT, loader: 'js' }));
  },
};

export const builtinsOnUse = [
  assertOnFailure,
  // node:http (1 ms, with its server half): undici reads only IncomingMessage, when it destroys
  // a stream, and the default maxHeaderSize, which the client (src/client/api-client.ts) gives
  sourcePatch(
    'undici-http-on-use',
    /undici[\\/]lib[\\/]core[\\/]util\.js$/,
    [
      ["const { IncomingMessage } = require('node:http')", ''],
      [
        'Object.getPrototypeOf(stream).constructor === IncomingMessage',
        "Object.getPrototypeOf(stream).constructor === process.getBuiltinModule('node:http').IncomingMessage",
      ],
    ],
    'undici changed: it loads node:http at start again',
  ),
  sourcePatch(
    'undici-client-http-on-use',
    /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    [
      ["const http = require('node:http')\n", ''],
      [
        "const getDefaultNodeMaxHeaderSize = http &&\n  http.maxHeaderSize &&\n  Number.isInteger(http.maxHeaderSize) &&\n  http.maxHeaderSize > 0\n  ? () => http.maxHeaderSize\n  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }",
        "const getDefaultNodeMaxHeaderSize = () => { const size = process.getBuiltinModule('node:http').maxHeaderSize; if (Number.isInteger(size) && size > 0) return size; throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }",
      ],
    ],
    'undici changed: its Client loads node:http at start again',
  ),
  sourcePatch(
    'undici-http2-on-use',
    /undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/,
    [
      [
        "http2 = require('node:http2')",
        `http2 = { constants: ${JSON.stringify(HTTP2_CONSTANTS)}, connect: (...args) => process.getBuiltinModule('node:http2').connect(...args) }`,
      ],
    ],
    'undici changed: its HTTP/2 client loads node:http2 (and tls, crypto) at start again',
  ),
  sourcePatch(
    'terminal-size-child-process-on-use',
    /terminal-size[\\/]index\.js$/,
    [
      [
        "import {execFileSync} from 'node:child_process';",
        "const execFileSync = (...args) => process.getBuiltinModule('node:child_process').execFileSync(...args);",
      ],
    ],
    'terminal-size changed: it loads node:child_process at start again',
  ),
];

// esbuild gives each ES module that imports a CommonJS module its own copy of that module's
// exports (its __toESM helper: an object with one getter per export). 41 of the bundle's files
// import React (44 exports) and 12 import node:process (80); all the bundle's copies took 3.7-10 ms
// of every start. Imported through one ES module each instead, each is copied once; the names
// and values the importers see are the same (test/build/dashboard-bundle.test.ts).
export const sharedInterop = {
  name: 'shared-interop',
  setup(b) {
    b.onResolve({ filter: /^(react|(node:)?process)$/ }, (args) =>
      args.kind === 'import-statement' && args.namespace === 'file'
        ? { path: args.path.replace(/^(node:)?process$/, 'node:process'), namespace: 'shared-interop' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'shared-interop' }, (args) => ({
      // neither sets __esModule, so a default import of either is the whole module.exports
      contents: `export * from '${args.path}'; export default require('${args.path}');`,
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
      loader: 'js',
    }));
  },
};

/** Options shared by every bundle of the dashboard's code (the CLI, the benchmark's Ink program). */
export const BUNDLE_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  minifySyntax: true,
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"' },
  external: ['better-sqlite3', 'react-devtools-core', 'oidc-provider'],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  plugins: [
    sharedInterop,
    yogaWithoutFetch,
    inkMeasureBounded,
    inkWrapBounded,
    lazyUnicodeData,
    ...builtinsOnUse,
    inkFrame,
  ],
};

// The dashboard's CommonJS bundle (dist/dashboard-HASH.cjs): CommonJS so that it can be loaded with
// V8's code cache on Node 20 (src/cli/code-cache.ts), which rules out a top-level await. Two
// dependencies have one: yoga-layout instantiates its WebAssembly with it, here it fills its
// object when done and src/app/yoga-ready.ts becomes that promise; Ink's reconciler awaits
// React devtools when DEV=true, here they are left out (Ink then says so).
const yogaWithoutTopLevelAwait = sourcePatch(
  'yoga-without-top-level-await',
  /yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/,
  [
    [
      'const Yoga = wrapAssembly(await loadYoga());',
      'const Yoga = {}; export const yogaReady = loadYoga().then((lib) => { Object.assign(Yoga, wrapAssembly(lib)); });',
    ],
  ],
  'yoga-layout changed: its top-level await cannot be bundled as CommonJS (the build fails after this)',
);
const inkWithoutDevtools = sourcePatch(
  'ink-without-devtools',
  /ink[\\/]build[\\/]reconciler\.js$/,
  [
    [
      "await import('./devtools.js');",
      "throw Object.assign(new Error('React devtools are not in the dashboard bundle'), { code: 'ERR_MODULE_NOT_FOUND' });",
    ],
    ['? await loadPackageJson()', "? { name: 'ink', version: undefined }"],
  ],
  'ink changed: its reconciler top-level await cannot be bundled as CommonJS (the build fails after this)',
);
const YOGA_READY = fileURLToPath(new URL('../src/app/yoga-ready.js', import.meta.url));
const yogaReadyFromYoga = {
  name: 'yoga-ready-from-yoga',
  setup(b) {
    b.onResolve({ filter: /[\\/]yoga-ready\.js$/ }, (args) =>
      resolve(args.resolveDir, args.path) === YOGA_READY ? { path: 'yoga-ready', namespace: 'yoga-ready' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'yoga-ready' }, () => ({
      contents: "export { yogaReady } from 'yoga-layout';",
      loader: 'js',
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
    }));
  },
};

/** Options of the dashboard's CommonJS bundle, entry src/app/start.ts. */
export const DASHBOARD_BUNDLE_OPTIONS = {
  ...BUNDLE_OPTIONS,
  format: 'cjs',
  banner: {},
  // required from node_modules when first used: qrcode, drawn only by a sign-in that asks again
  // (src/app/sign-in.ts); yaml, which reads a config file only where there is one (src/config-file/load.ts)
  external: [...BUNDLE_OPTIONS.external, 'qrcode', 'yaml'],
  plugins: [yogaWithoutTopLevelAwait, inkWithoutDevtools, yogaReadyFromYoga, ...BUNDLE_OPTIONS.plugins],
  // less to read and to deserialize with the code cache; without comments the file is ASCII, so
  // V8 holds it as a one-byte string
  minifyWhitespace: true,
  minifyIdentifiers: true,
};

// The launcher's imports that must stay outside it: the demo server (the ES modules' demo.js) and
// the dashboard app's source (used only when run from source; in dist/ the bundle is loaded).
const launchExternals = {
  name: 'launch-externals',
  setup(b) {
    b.onResolve({ filter: /[\\/]server[\\/]demo[\\/]embedded\.js$/ }, () => ({ path: './demo.js', external: true }));
    b.onResolve({ filter: /[\\/]app[\\/]start\.js$/ }, () => ({ path: './app-source-not-in-dist.js', external: true }));
  },
};

/** Options of the CLI's CommonJS launcher, entry src/cli/launch.ts (small: no dependency). */
export const LAUNCH_OPTIONS = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.18',
  minifySyntax: true,
  legalComments: 'none',
  plugins: [launchExternals],
};
