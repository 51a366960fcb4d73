import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { REPO } from './child-server.js';

/**
 * The built CLI copied where any user may read it, for a test that runs it as another user
 * (nobody): the checkout can be in a directory that user cannot enter (a clone in /root or in
 * `mktemp -d`), and its files can be private to their owner (a clone under umask 077). Holds the
 * launcher, the bundle and the packages the bundle leaves outside it (better-sqlite3 in both
 * majors, src/server/db/sqlite-driver.ts), without their sources and build leftovers.
 * Call ensureBuilt() (child-server.ts) first.
 */
export interface CliCopy {
  /** the copy's bin/appliance-admin.cjs */
  cli: string;
  /** a folder any user may enter, for data directories of the test (mode 0755) */
  root: string;
  remove(): void;
}

const PACKAGES = ['better-sqlite3', 'better-sqlite3-n22', 'bindings', 'file-uri-to-path'];
/** Not needed to load a package: its C sources, the compiler's objects, a test addon. */
const LEFT_OUT = new Set(['deps', 'src', 'obj', 'obj.target', '.deps', 'test_extension.node', 'sqlite3.a']);

export function worldReadableCli(): CliCopy {
  // outside the run's private temp folder, which another user could not enter
  const root = mkdtempSync('/tmp/aa-cli-copy-');
  const app = join(root, 'app');
  const copy = (from: string, to: string) =>
    cpSync(from, to, { recursive: true, dereference: true, filter: (src) => !LEFT_OUT.has(basename(src)) });
  copy(join(REPO, 'bin'), join(app, 'bin'));
  copy(join(REPO, 'dist'), join(app, 'dist'));
  copy(join(REPO, 'package.json'), join(app, 'package.json'));
  for (const p of PACKAGES) copy(join(REPO, 'node_modules', p), join(app, 'node_modules', p));
  openToAll(root);
  return {
    cli: join(app, 'bin', 'appliance-admin.cjs'),
    root,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** a+rX over the tree: readable by all, folders and programs enterable and runnable by all */
function openToAll(path: string): void {
  const st = statSync(path);
  chmodSync(path, st.isDirectory() || st.mode & 0o100 ? 0o755 : 0o644);
  if (st.isDirectory()) for (const name of readdirSync(path)) openToAll(join(path, name));
}
