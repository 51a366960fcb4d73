// The dashboard's edits of its dependencies: versioned patches in patches/, applied to
// node_modules by patch-package when `npm install` changed them (package.json's `dependencies` script), so that
// vitest, the benchmarks and the bundle all run the same patched code. docs/dependency-edits.md
// gives each one's reason, what it buys against a target, and how to regenerate it after an
// upgrade; test/build/dependency-edits.test.ts checks that each is applied and in the bundle.
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed dependencies (the real path: node_modules may be a link to a shared install). */
export const NODE_MODULES = realpathSync(fileURLToPath(new URL('../node_modules', import.meta.url)));

/** The patch files, patch-package's own. */
export const PATCHES_DIR = fileURLToPath(new URL('../patches', import.meta.url));

/**
 * @typedef {object} DependencyPatch
 * @property {string} patch the patch file in patches/ (patch-package names it package+version)
 * @property {Record<string, string>} files each patched file (relative to node_modules, `/`) and
 *   its edit's heading in docs/dependency-edits.md; the patch writes the comment
 *   `appliance-admin patch: HEADING` into the file, which tells that it is applied
 */

/** @type {DependencyPatch[]} */
export const DEPENDENCY_PATCHES = [
  {
    patch: 'ink+6.8.0.patch',
    files: {
      'ink/build/measure-text.js': 'ink-measure-cache-bounded',
      'ink/build/wrap-text.js': 'ink-wrap-cache-bounded',
      'ink/build/reconciler.js': 'ink-without-devtools',
    },
  },
  {
    patch: 'yoga-layout+3.2.1.patch',
    files: { 'yoga-layout/dist/binaries/yoga-wasm-base64-esm.js': 'yoga-without-fetch' },
  },
  { patch: 'string-width+8.3.0.patch', files: { 'string-width/index.js': 'lazy-unicode-data' } },
  {
    patch: 'wrap-ansi++string-width+7.2.0.patch',
    files: { 'wrap-ansi/node_modules/string-width/index.js': 'lazy-unicode-data' },
  },
  { patch: 'slice-ansi+8.0.0.patch', files: { 'slice-ansi/tokenize-ansi.js': 'lazy-unicode-data' } },
  {
    patch: '@alcalzone+ansi-tokenize+0.2.5.patch',
    files: { '@alcalzone/ansi-tokenize/build/tokenize.js': 'lazy-unicode-data' },
  },
];

/** The comment a patch writes into each file it patches. */
export const patchMark = (name) => `appliance-admin patch: ${name}`;

/** The patched files of node_modules that do not hold their patch: empty when all are applied. */
export function unpatchedFiles(nodeModules = NODE_MODULES) {
  const missing = [];
  for (const { patch, files } of DEPENDENCY_PATCHES)
    for (const [file, name] of Object.entries(files)) {
      let code = '';
      try {
        code = readFileSync(join(nodeModules, file), 'utf8');
      } catch {
        // a file that moved or went: reported below as not patched
      }
      if (!code.includes(patchMark(name))) missing.push(`node_modules/${file} (patches/${patch})`);
    }
  return missing;
}

/** Throws, saying what to run, when a patch is not applied: the bundle must not ship without it. */
export function assertPatched(nodeModules = NODE_MODULES) {
  const missing = unpatchedFiles(nodeModules);
  if (missing.length > 0)
    throw new Error(
      `dependency patches not applied to ${missing.join(', ')}: run \`npx patch-package\` (npm install runs it), or see docs/dependency-edits.md after an upgrade`,
    );
}
