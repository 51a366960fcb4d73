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

/**
 * An esbuild plugin that edits one dependency file as it is bundled: each [find, replace] must
 * be found, else the file is bundled as it is with `changed` as a warning (the dependency moved on
 * and the patch needs looking at; the product still works, only slower or larger).
 */
function sourcePatch(name, file, edits, changed) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter: file }, (args) => {
        const code = readFileSync(args.path, 'utf8');
        if (!edits.every(([find]) => code.includes(find))) return { contents: code, loader: 'js', warnings: [{ text: changed }] };
        return { contents: edits.reduce((c, [find, replace]) => c.replace(find, replace), code), loader: 'js' };
      });
    },
  };
}

// Ink's layout engine (yoga-layout) embeds its WebAssembly as a data: URL and, wherever a global
// fetch exists, reads it with fetch(): on Node that loads Node's internal undici first, ~10 ms
// of every dashboard start. Its own synchronous base64 decoder does the same job without it.
const yogaWithoutFetch = sourcePatch(
  'yoga-without-fetch',
  /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/,
  [['function ya(){return w||"function"!=typeof fetch?', 'function ya(){return true?']],
  'yoga-layout changed: its wasm is read with fetch() again (slower start)',
);

// Ink keeps the size of every text it ever laid out in a module-level Map that is never cleared:
// a dashboard showing new rows all day grows by that much (test/bench/RESULTS.md,
// dashboard-memory). Bounded here: cleared when it holds 2,000 texts (a frame has ~100).
const inkMeasureBounded = sourcePatch(
  'ink-measure-cache-bounded',
  /ink[\\/]build[\\/]measure-text\.js$/,
  [['cache.set(text, dimensions);', 'if (cache.size >= 2000) cache.clear(); cache.set(text, dimensions);']],
  'ink changed: its text measure cache is unbounded again',
);

// Ink also keeps every text it cut or wrapped to fit (wrap-text.js, a plain object never
// emptied): a long key-hint line or summary that changes with the data adds one each time.
const inkWrapBounded = sourcePatch(
  'ink-wrap-cache-bounded',
  /ink[\\/]build[\\/]wrap-text\.js$/,
  [
    ['const cache = {};', 'let cache = {}; let cacheSize = 0;'],
    ['cache[cacheKey] = wrappedText;', 'if (++cacheSize > 2000) { cache = {}; cacheSize = 1; } cache[cacheKey] = wrappedText;'],
  ],
  'ink changed: its wrap cache is unbounded again',
);

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
