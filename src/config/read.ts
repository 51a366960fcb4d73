import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from './usage-error.js';

/**
 * The most a config file may be, in bytes. A real one is a few kilobytes; the cap bounds the time
 * the YAML parser can take: about 1.5 s of CPU for the slowest 256 KiB (130,000 nested brackets)
 * on a shared 2-core machine, under a second for 40,000 keys.
 */
export const CONFIG_MAX_BYTES = 256 * 1024;

const modeText = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/** The user the check is for; undefined where there are no POSIX owners and modes (Windows). */
const currentUid = (): number | undefined => (process.platform === 'win32' ? undefined : process.getuid?.());

/**
 * The config file's text, read only when nobody but its user could have written it: it decides
 * where the token goes (the URL, the token file, the CA). Refused, as a UsageError of one line:
 * a file group or others can write or that another user owns, in a folder group or others can
 * write or that someone other than the user or root owns (for a symbolic link, the link's folder
 * and the target's), not a regular file, or over CONFIG_MAX_BYTES. `undefined` when the file is
 * missing and `missingOk`.
 */
export function readConfigText(file: string): string;
export function readConfigText(file: string, missingOk: true): string | undefined;
export function readConfigText(file: string, missingOk = false): string | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put there is refused below instead of blocking the open
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && missingOk) return undefined;
    throw new UsageError(`cannot read the config file ${file}: ${code ?? 'error'}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UsageError(`the config file ${file} is not a regular file`);
    const uid = currentUid();
    if (uid !== undefined) {
      if ((st.mode & 0o022) !== 0)
        throw new UsageError(
          `the config file ${file} can be changed by group or others (mode ${modeText(st.mode)}), so it is not used; run: chmod go-w ${file}`,
        );
      if (st.uid !== uid)
        throw new UsageError(
          `the config file ${file} belongs to another user (uid ${st.uid}), so it is not used; use a config file of your own`,
        );
      const folders = new Set([dirname(resolve(file))]);
      folders.add(dirname(realpathOf(file)));
      for (const folder of folders) checkFolder(folder, file, uid);
    }
    const tooLarge = () =>
      new UsageError(
        `the config file ${file} is larger than ${CONFIG_MAX_BYTES / 1024} KiB, the most a config file may be`,
      );
    if (st.size > CONFIG_MAX_BYTES) throw tooLarge();
    // read at most one byte more than the cap: a file that grew since fstat is still refused
    const buf = Buffer.alloc(CONFIG_MAX_BYTES + 1);
    let length = 0;
    for (let n; length < buf.length && (n = readSync(fd, buf, length, buf.length - length, null)) > 0;) length += n;
    if (length > CONFIG_MAX_BYTES) throw tooLarge();
    return buf.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

function realpathOf(file: string): string {
  try {
    return realpathSync(file);
  } catch (err) {
    throw new UsageError(`cannot read the config file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/**
 * Refuses the folder a config file is in (or will be written to) when someone else could replace
 * the file there: group or others can write to it (a sticky folder such as /tmp too), or it is
 * another user's (root's is fine: root can change any file anyway). Nothing on Windows.
 */
export function checkConfigFolder(folder: string, file: string): void {
  const uid = currentUid();
  if (uid !== undefined) checkFolder(folder, file, uid);
}

function checkFolder(folder: string, file: string, uid: number): void {
  let st: Stats;
  try {
    st = statSync(folder);
  } catch (err) {
    throw new UsageError(
      `cannot read the config file's folder ${folder}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  const own = 'keep the config file in a folder of your own';
  if ((st.mode & 0o022) !== 0)
    throw new UsageError(
      (st.mode & 0o1000) !== 0
        ? `the config file's folder ${folder} is a shared directory (sticky bit, like /tmp), so ${file} is not used; ${own}`
        : `the config file's folder ${folder} can be changed by group or others (mode ${modeText(st.mode)}), so ${file} is not used; run: chmod go-w ${folder}`,
    );
  if (st.uid !== uid && st.uid !== 0)
    throw new UsageError(
      `the config file's folder ${folder} belongs to another user (uid ${st.uid}), so ${file} is not used; ${own}`,
    );
}
