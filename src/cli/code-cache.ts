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
import { createRequire, Module } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * Loads a CommonJS bundle with V8's code cache: the compiled code of its last start is read back
 * instead of compiling ~2.5 MB of JavaScript again, which is most of the dashboard's start on
 * Node 20 (no compile cache for ES modules before Node 22.1;
 * docs/performance.md): what Node 22's module.enableCompileCache() does, for one file.
 *
 * V8 checks a cache only against the source's length, so a cache is kept per bundle content:
 * the bundle's name carries its content hash (dashboard-HASH.cjs), and the cache's name carries
 * that name, the Node version and the architecture. A cache is compiled code, run as it is: it is
 * used only from a directory of the user's own that nobody else can write to, and only when the
 * file itself is the user's own and written by nobody else. Anything unusual (no home, a foreign
 * or open directory, a rejected cache, a full disk) means compiling as usual, never an error.
 */

export interface CachedBundle<T> {
  exports: T;
  /** 'used' (read back and accepted), 'rejected' (present but refused by V8), 'none', 'off' */
  readonly cache: 'used' | 'rejected' | 'none' | 'off';
  /** Writes the code compiled so far as the cache, once, if there was no usable one. */
  save(): void;
}

/** `$XDG_CACHE_HOME/appliance-admin`, else `~/.cache/appliance-admin`; null when caching is off. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.NODE_DISABLE_COMPILE_CACHE) return null;
  const base = env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : '');
  return base ? join(base, 'appliance-admin') : null;
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

export function requireWithCodeCache<T>(file: string, cacheDir: string | null = defaultCacheDir()): CachedBundle<T> {
  const source = readFileSync(file, 'utf8');
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
  run.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));

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
