// One esbuild bundle for the CLI: production React, code split so the server and screens
// not shown load lazily. Native better-sqlite3 stays external.
// Builds into a fresh folder and swaps it in, so a CLI already running from dist/ (a test, a
// dashboard) never sees a half-written or missing bundle.
import { build } from 'esbuild';
import { renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUNDLE_OPTIONS } from './bundle-options.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const next = `${root}dist.next-${process.pid}`;
const old = `${root}dist.old-${process.pid}`;
rmSync(next, { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/cli/main.ts' },
  ...BUNDLE_OPTIONS,
  absWorkingDir: root,
  outdir: next,
  splitting: true,
  sourcemap: 'linked',
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
