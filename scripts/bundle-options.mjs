// The esbuild settings of the CLI bundle: production React and the dashboard's frame builder. The
// dependencies' own edits are patches applied to node_modules at install (scripts/dependency-edits.mjs,
// docs/dependency-edits.md), so the bundle takes them as installed. Used by scripts/build.mjs, and
// by the start benchmark and the bundle test, so they measure and check exactly what ships.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inkFrame } from './ink-frame.mjs';

// esbuild gives each ES module that imports a CommonJS module its own copy of that module's
// exports (its __toESM helper: an object with one getter per export). 41 of the bundle's files
// import React (44 exports) and 12 import node:process (80). Imported through one ES module each
// instead, each is copied once (docs/dependency-edits.md, shared-interop); the names and values
// the importers see are the same (test/build/dashboard-bundle.test.ts).
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
  plugins: [sharedInterop, inkFrame],
};

// The dashboard's CommonJS bundle (dist/dashboard-HASH.cjs): CommonJS so that it can be loaded with
// V8's code cache on Node 20 (src/cli/code-cache.ts), which rules out a top-level await. Only for
// Node 20: once the CLI requires Node 22.1, the dashboard can be an ES module bundle, cached by
// module.enableCompileCache(), and this goes (with ink-without-devtools, docs/dependency-edits.md).
// yoga-layout's index awaits its WebAssembly at the top level; here Ink's `yoga-layout` and
// src/dashboard/terminal/yoga-ready.ts are one module made from yoga's public `yoga-layout/load`
// instead: Yoga is filled in when loaded, and the dashboard awaits yogaReady before its first render.
const YOGA_READY = fileURLToPath(new URL('../src/dashboard/terminal/yoga-ready.js', import.meta.url));
const yogaLoadedLater = {
  name: 'yoga-loaded-later',
  setup(b) {
    const later = { path: 'yoga-layout', namespace: 'yoga-loaded-later' };
    b.onResolve({ filter: /^yoga-layout$/ }, () => later);
    b.onResolve({ filter: /[\\/]yoga-ready\.js$/ }, (args) =>
      resolve(args.resolveDir, args.path) === YOGA_READY ? later : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'yoga-loaded-later' }, () => ({
      contents: [
        "import { loadYoga } from 'yoga-layout/load';",
        "export * from 'yoga-layout/load';",
        'const Yoga = {};',
        'export const yogaReady = loadYoga().then((lib) => { Object.assign(Yoga, lib); });',
        'export default Yoga;',
      ].join('\n'),
      loader: 'js',
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
    }));
  },
};

/**
 * The dependencies the bundles leave to be required when first used (yaml, qrcode), required from
 * dist/vendor/ (scripts/build.mjs bundles each there), not from node_modules: the package installs
 * from its tarball with no dependency to fetch for the dashboard (README.md, "Install").
 */
export const VENDORED = ['yaml', 'qrcode'];
export const vendored = {
  name: 'vendored',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${VENDORED.join('|')})$`) }, (args) => ({
      path: `./vendor/${args.path}.cjs`,
      external: true,
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
  plugins: [vendored, sharedInterop, yogaLoadedLater, inkFrame],
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
  // from node_modules then: bundled, its 233 KB were compiled at every start (docs/performance.md)
  external: ['yaml'],
  plugins: [vendored, launchExternals],
};
