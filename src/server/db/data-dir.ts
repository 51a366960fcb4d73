import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// The data directory and its files are private to the user the appliance runs as. Kept apart
// from the database code so that the embedded demo's launcher (in the dashboard's process) can
// make its log private without loading SQLite.

export class DataDirError extends Error {
  override name = 'DataDirError';
}

/**
 * The data directory, created with mode 0700 (and its missing parents) if it does not exist; an
 * existing one that group or others may enter is tightened to 0700 (makePrivate). Call it before
 * anything writes into the directory.
 */
export function ensureDataDir(dataDir: string): void {
  try {
    makeDirs(dataDir);
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    throw new DataDirError(
      `data directory ${dataDir} is not writable (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  // The sticky bit marks a directory shared by everyone (/tmp): making it private would break the machine.
  if (!WINDOWS && (statSync(dataDir).mode & 0o1000) !== 0) {
    throw new DataDirError(
      `data directory ${dataDir} is a shared directory (sticky bit, like /tmp): use a directory of its own inside it`,
    );
  }
  makePrivate(dataDir);
}

const WINDOWS = process.platform === 'win32';

/**
 * Creates `file` (failing with EEXIST when it is there) with mode 0600 whatever the umask, for a
 * file that will hold the appliance's data or logs.
 */
export function createPrivateFile(file: string): void {
  const fd = openSync(file, 'wx', 0o600);
  try {
    if (!WINDOWS) fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes group and other permissions from a file or directory of the data directory that has
 * them (0644 becomes 0600, 0755 becomes 0700); a missing one is fine. One that cannot be changed
 * (another user's, a read-only file system) is refused in words: its data would stay readable.
 */
export function makePrivate(path: string): void {
  if (WINDOWS) return;
  let mode: number;
  let uid: number;
  try {
    ({ mode, uid } = statSync(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new DataDirError(`cannot read the mode of ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if ((mode & 0o077) === 0) return;
  try {
    chmodSync(path, mode & 0o7700);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const me = process.getuid?.();
    const notMine = code === 'EPERM' && uid !== me;
    const why = notMine
      ? `it belongs to uid ${uid}, not to this user (uid ${me}); its owner can run chmod go= ${path}`
      : `chmod failed (${code})`;
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    throw new DataDirError(`${path} is open to group or others (mode ${octal}) and cannot be made private: ${why}`);
  }
}

/**
 * mkdir -p, one level at a time. Node's recursive mkdirSync retries for ever where mkdir answers
 * ENOENT under a parent that exists (anywhere under /proc): here that is an error like any other.
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d) && dirname(d) !== d; d = dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      mkdirSync(d, { mode: 0o700 });
      // 0700 whatever the umask: a umask of 0277 would leave it unwritable to its owner
      if (!WINDOWS) chmodSync(d, 0o700);
    } catch (err) {
      // made meanwhile by another process: fine, the write check that follows decides
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/**
 * Writes `file` in the data directory whole or not at all (a sibling, renamed over it), mode 0600
 * and owned by the directory's owner: a host command run as root beside a server running as the
 * appliance's user (audit rotate-key) must leave a file that server can read. A user who is neither
 * root nor the directory's owner is refused in words: the server could not read what it wrote.
 */
export function writeOwnedPrivateFile(dataDir: string, file: string, content: string | Buffer): void {
  const owner = WINDOWS ? null : statSync(dataDir);
  const me = process.getuid?.();
  if (owner && me !== undefined && me !== 0 && owner.uid !== me)
    throw new DataDirError(
      `${dataDir} belongs to uid ${owner.uid}, not to this user (uid ${me}): run this as that user, ` +
        'so that the appliance can read what it writes',
    );
  // a name of this writer's own: the server and a host command may write the same file at once
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.new`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    try {
      if (!WINDOWS) fchmodSync(fd, 0o600);
      if (owner && me === 0 && (owner.uid !== 0 || owner.gid !== 0)) fchownSync(fd, owner.uid, owner.gid);
      writeFileSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Whether `dataDir` holds `file` (the database, for a host command). A directory this user may
 * not look into is refused in words, naming its owner, rather than taken for one without a
 * database: `token issue` or `audit rotate-key` run as the wrong user.
 */
export function holdsFile(dataDir: string, file: string): boolean {
  try {
    statSync(join(dataDir, file));
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    let owner: number | undefined;
    try {
      owner = statSync(dataDir).uid;
    } catch {
      // not even the directory can be read: its owner is not known here
    }
    const me = process.getuid?.();
    const whose =
      owner !== undefined && owner !== me
        ? `: it belongs to uid ${owner}, not to this user (uid ${me}); run this as that user or as root`
        : '';
    throw new DataDirError(`cannot look into ${dataDir} (${code ?? 'error'})${whose}`);
  }
}
