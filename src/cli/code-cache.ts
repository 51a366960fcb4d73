import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import nodeModule, { createRequire, Module } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * Loads the dashboard's CommonJS bundle with its compiled code cached between starts: compiling
 * ~2.5 MB of JavaScript again is most of a start (docs/performance.md).
 *
 * On Node 22.1 and later, Node's own compile cache (`module.enableCompileCache()`) does it: the
 * plain path. Node 20 has none, so there the code below the "Node 20" line does it by hand, for
 * this one file, with V8's code cache; when the CLI requires Node 22.1, that part is deleted but
 * for runWithV8CodeCache, which the single file's bundles need on any Node (they are no files).
 *
 * A cache is compiled code, run as it is: it is used only from a directory of the user's own
 * that nobody else can write to. Anything unusual (no home, a foreign or open directory, a
 * rejected cache, a full disk) means compiling as usual, never an error.
 */

export interface CachedBundle<T> {
  exports: T;
  /**
   * 'node': Node's own compile cache is on (Node 22.1+); Node 20: 'used' (read back and
   * accepted), 'rejected' (present but refused by V8), 'none'; 'off': no cache
   */
  readonly cache: 'node' | 'used' | 'rejected' | 'none' | 'off';
  /** Writes the code compiled so far as the cache (Node 20: once, if there was no usable one). */
  save(): void;
}

/** `$XDG_CACHE_HOME/appliance-admin`, else `~/.cache/appliance-admin`; null when caching is off. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.NODE_DISABLE_COMPILE_CACHE) return null;
  const base = env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : '');
  return base ? join(base, 'appliance-admin') : null;
}

// Node 22.1 and later (@types/node is Node 20's: neither function is in its types)
const { enableCompileCache: compileCache, flushCompileCache } = nodeModule as {
  enableCompileCache?: (dir: string) => { status: number };
  flushCompileCache?: () => void;
};
/** module.constants.compileCacheStatus: ENABLED, ALREADY_ENABLED */
const COMPILE_CACHE_ON = new Set([1, 2]);

/**
 * Node 22.1 and later: turns Node's compile cache on, in the user's private cache directory, for
 * every module loaded from here on (the launcher calls it first; Node's default directory is the
 * shared temporary one). Node 20: false, nothing to do (requireWithCodeCache caches the dashboard).
 */
export function enableCodeCache(cacheDir: string | null = defaultCacheDir()): boolean {
  if (!compileCache || !cacheDir) return false;
  const dir = join(cacheDir, 'compile-cache');
  return privateDir(cacheDir) && privateDir(dir) && COMPILE_CACHE_ON.has(compileCache(dir).status);
}

export function requireWithCodeCache<T>(file: string, cacheDir: string | null = defaultCacheDir()): CachedBundle<T> {
  if (!compileCache) return requireWithV8CodeCache(file, cacheDir);
  const on = enableCodeCache(cacheDir);
  return {
    exports: createRequire(file)(file) as T,
    cache: on ? 'node' : 'off',
    save: () => (on ? flushCompileCache?.() : undefined),
  };
}

const uid = () => process.getuid?.() ?? -1;
/** the user's own, and neither group nor others may write to it */
const private_ = (s: Stats) => (uid() === -1 || s.uid === uid()) && (s.mode & 0o022) === 0;

function privateDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const s = statSync(dir);
    return s.isDirectory() && private_(s);
  } catch {
    return false;
  }
}

// ---- Node 20 (no module.enableCompileCache), and the single file: V8's code cache, by hand. ----
//
// V8 checks a cache only against the source's length, so a cache is kept per bundle content:
// the bundle's name carries its content hash (dashboard-HASH.cjs), and the cache's name carries
// that name, the Node version and the architecture. The file itself must be the user's own and
// written by nobody else.

function readPrivate(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const s = fstatSync(fd);
    return s.isFile() && private_(s) ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const suffix = () => `-${process.version}-${process.arch}.v8cache`;

/** Kept per bundle family and Node: this build's and the two newest others (another install). */
const KEEP = 3;

/** Removes this Node's caches of older builds of the bundle (dashboard-OLDHASH.cjs-…). */
function pruneOthers(dir: string, keep: string) {
  const family = keep.slice(0, keep.search(/-[^-]*\.cjs-/) + 1);
  if (!family) return;
  const others = readdirSync(dir)
    .filter((name) => name !== keep && name.startsWith(family) && name.endsWith(suffix()))
    .map((name) => ({ name, at: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { name } of others.slice(KEEP - 1)) rmSync(join(dir, name), { force: true });
}

function requireWithV8CodeCache<T>(file: string, cacheDir: string | null): CachedBundle<T> {
  return runWithV8CodeCache(readFileSync(file, 'utf8'), file, cacheDir, createRequire(file));
}

/**
 * Runs `source` as the CommonJS module `file` with V8's code cache: the Node 20 path above, and the
 * single file's bundles (src/cli/single-file.ts), which are no files on disk but text inside the
 * executable, on every Node. `file` names the module and its cache: it must change with `source`.
 */
export function runWithV8CodeCache<T>(
  source: string,
  file: string,
  cacheDir: string | null,
  requireFn: NodeJS.Require,
): CachedBundle<T> {
  const cacheFile = cacheDir && privateDir(cacheDir) ? join(cacheDir, `${basename(file)}${suffix()}`) : null;
  const cachedData = cacheFile ? readPrivate(cacheFile) : undefined;
  // No dynamic import() loader: on Node 20 code read back from a cache loses it, so the bundle
  // holds no import() at all (test/build/dashboard-bundle.test.ts checks it).
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  const cache = !cacheFile ? 'off' : !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
  const mod = new Module(file);
  mod.filename = file;
  const run = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: Module,
    filename: string,
    dirname: string,
  ) => void;
  run.call(mod.exports, mod.exports, requireFn, mod, file, dirname(file));

  let saved = cache === 'used' || cache === 'off';
  return {
    exports: mod.exports as T,
    cache,
    save() {
      if (saved || !cacheFile) return;
      saved = true;
      const temp = `${cacheFile}.${process.pid}.tmp`;
      try {
        writeFileSync(temp, script.createCachedData(), { mode: 0o600, flag: 'wx' });
        renameSync(temp, cacheFile);
        pruneOthers(cacheDir!, basename(cacheFile));
      } catch {
        rmSync(temp, { force: true });
      }
    },
  };
}
