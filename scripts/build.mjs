// One esbuild bundle for the CLI: production React, code split so the server and screens
// not shown load lazily. Native better-sqlite3 stays external.
// Builds into a fresh folder and swaps it in, so a CLI already running from dist/ (a test, a
// dashboard) never sees a half-written or missing bundle.
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inkFrame } from './ink-frame.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const next = `${root}dist.next-${process.pid}`;
const old = `${root}dist.old-${process.pid}`;
rmSync(next, { recursive: true, force: true });

// Ink's layout engine (yoga-layout) embeds its WebAssembly as a data: URL and, wherever a global
// fetch exists, reads it with fetch(): on Node that loads Node's internal undici first, ~10 ms
// of every dashboard start. Its own synchronous base64 decoder does the same job without it.
const YOGA_FETCH = 'function ya(){return w||"function"!=typeof fetch?';
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(b) {
    b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, (args) => {
      const code = readFileSync(args.path, 'utf8');
      if (!code.includes(YOGA_FETCH)) return { contents: code, loader: 'js', warnings: [{ text: 'yoga-layout changed: its wasm is read with fetch() again (slower start)' }] };
      return { contents: code.replace(YOGA_FETCH, 'function ya(){return true?'), loader: 'js' };
    });
  },
};

// Ink keeps the size of every text it ever laid out in a module-level Map that is never cleared:
// a dashboard showing new rows all day grows by that much (test/bench/RESULTS.md,
// dashboard-memory). Bounded here: cleared when it holds 2,000 texts (a frame has ~100).
const INK_MEASURE = 'cache.set(text, dimensions);';
const inkMeasureBounded = {
  name: 'ink-measure-cache-bounded',
  setup(b) {
    b.onLoad({ filter: /ink[\\/]build[\\/]measure-text\.js$/ }, (args) => {
      const code = readFileSync(args.path, 'utf8');
      if (!code.includes(INK_MEASURE)) return { contents: code, loader: 'js', warnings: [{ text: 'ink changed: its text measure cache is unbounded again' }] };
      return { contents: code.replace(INK_MEASURE, `if (cache.size >= 2000) cache.clear(); ${INK_MEASURE}`), loader: 'js' };
    });
  },
};

// Ink also keeps every text it cut or wrapped to fit (wrap-text.js, a plain object never
// emptied): a long key-hint line or summary that changes with the data adds one each time.
const INK_WRAP = 'cache[cacheKey] = wrappedText;';
const inkWrapBounded = {
  name: 'ink-wrap-cache-bounded',
  setup(b) {
    b.onLoad({ filter: /ink[\\/]build[\\/]wrap-text\.js$/ }, (args) => {
      const code = readFileSync(args.path, 'utf8');
      if (!code.includes(INK_WRAP) || !code.includes('const cache = {};')) return { contents: code, loader: 'js', warnings: [{ text: 'ink changed: its wrap cache is unbounded again' }] };
      const bounded = code
        .replace('const cache = {};', 'let cache = {}; let cacheSize = 0;')
        .replace(INK_WRAP, `if (++cacheSize > 2000) { cache = {}; cacheSize = 1; } ${INK_WRAP}`);
      return { contents: bounded, loader: 'js' };
    });
  },
};

await build({
  entryPoints: { cli: 'src/cli/main.ts' },
  absWorkingDir: root,
  outdir: next,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  sourcemap: 'linked',
  minifySyntax: true,
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"' },
  external: ['better-sqlite3', 'react-devtools-core', 'oidc-provider'],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  plugins: [yogaWithoutFetch, inkMeasureBounded, inkWrapBounded, inkFrame],
  logLevel: 'warning',
});
// chunk names are content hashes, so files of the old bundle are never overwritten: the old
// folder is moved aside (one rename), the new one moved in (one rename), then the old removed
try {
  renameSync(`${root}dist`, old);
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
renameSync(next, `${root}dist`);
rmSync(old, { recursive: true, force: true });
