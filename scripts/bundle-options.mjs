// The esbuild settings of the CLI bundle: production React, the dependency edits
// (scripts/dependency-edits.mjs, docs/dependency-edits.md) and the dashboard's frame builder.
// Used by scripts/build.mjs, and by the start benchmark and the bundle test, so they measure and
// check exactly what ships.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMONJS_EDITS, DEPENDENCY_EDITS, dependencyEdits } from './dependency-edits.mjs';
import { inkFrame } from './ink-frame.mjs';

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
  plugins: [sharedInterop, dependencyEdits(DEPENDENCY_EDITS), inkFrame],
};

// The dashboard's CommonJS bundle (dist/dashboard-HASH.cjs): CommonJS so that it can be loaded with
// V8's code cache on Node 20 (src/cli/code-cache.ts), which rules out a top-level await. Two
// dependencies have one, edited away (COMMONJS_EDITS): yoga-layout's, whose promise
// src/dashboard/terminal/yoga-ready.ts becomes here, and Ink's wait for React devtools, left out.
const YOGA_READY = fileURLToPath(new URL('../src/dashboard/terminal/yoga-ready.js', import.meta.url));
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

/** Options of the dashboard's CommonJS bundle, entry src/cli/dashboard-bundle.ts. */
export const DASHBOARD_BUNDLE_OPTIONS = {
  ...BUNDLE_OPTIONS,
  format: 'cjs',
  banner: {},
  // required from node_modules when first used: qrcode, drawn only by a sign-in that asks again
  // (src/dashboard/shell/sign-in.ts); yaml, which reads a config file only where there is one (src/config/load.ts)
  external: [...BUNDLE_OPTIONS.external, 'qrcode', 'yaml'],
  plugins: [sharedInterop, dependencyEdits([...COMMONJS_EDITS, ...DEPENDENCY_EDITS]), yogaReadyFromYoga, inkFrame],
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
    b.onResolve({ filter: /(^|[\\/])embedded-demo\.js$/ }, () => ({ path: './demo.js', external: true }));
    b.onResolve({ filter: /(^|[\\/])dashboard-bundle\.js$/ }, () => ({
      path: './app-source-not-in-dist.js',
      external: true,
    }));
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
  // yaml, which only `:columns save` and `:sort save` load (src/config/save.ts), is required
  // from node_modules then: bundled, its 233 KB were compiled at every start (about 4 ms)
  external: ['yaml'],
  plugins: [launchExternals],
};
