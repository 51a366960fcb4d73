import {
  closeSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  chmodSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { SessionFileError } from './errors.js';

/** The stored sign-in (session.json): this tool's own file, written by writeSession below. */
export interface StoredSession {
  version: 1;
  issuer: string;
  client_id: string;
  scope?: string;
  audience?: string;
  resource?: string;
  appliance_url?: string;
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  /** ms since the epoch; null when the provider gave no lifetime */
  expires_at: number | null;
  /** ms since the epoch when this access token was received (its lifetime is expires_at minus this) */
  obtained_at?: number;
  subject?: string;
  name?: string;
  signed_in_at: string;
}

// Checked by hand rather than with a zod schema: the dashboard reads this module as it starts, and
// loading zod there is a cost every start would pay (docs/performance.md). Every field's kind, in the
// file's order; a field not listed here is dropped.
const FIELDS: Record<keyof StoredSession, 'string' | 'string?' | 'number?' | 'number|null' | 'one'> = {
  version: 'one',
  issuer: 'string',
  client_id: 'string',
  scope: 'string?',
  audience: 'string?',
  resource: 'string?',
  appliance_url: 'string?',
  access_token: 'string',
  refresh_token: 'string?',
  token_type: 'string?',
  expires_at: 'number|null',
  obtained_at: 'number?',
  subject: 'string?',
  name: 'string?',
  signed_in_at: 'string',
};

const fits = (kind: (typeof FIELDS)[keyof StoredSession], v: unknown): boolean => {
  switch (kind) {
    case 'one':
      return v === 1;
    case 'string':
      return typeof v === 'string';
    case 'string?':
      return v === undefined || typeof v === 'string';
    case 'number?':
      return v === undefined || (typeof v === 'number' && Number.isFinite(v));
    case 'number|null':
      return v === null || (typeof v === 'number' && Number.isFinite(v));
  }
};

/** The stored sign-in in `value`, with only its known fields; null when a field is missing or of the wrong kind. */
export function storedSessionOf(value: unknown): StoredSession | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const from = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, kind] of Object.entries(FIELDS) as [keyof StoredSession, (typeof FIELDS)[keyof StoredSession]][]) {
    const v = Object.hasOwn(from, key) ? from[key] : undefined;
    if (!fits(kind, v)) return null;
    if (v !== undefined) out[key] = v;
  }
  return (out.access_token as string).length > 0 ? (out as unknown as StoredSession) : null;
}

/** $XDG_CONFIG_HOME/appliance-admin/session.json, or ~/.config/… (XDG ignores a relative value). */
export function defaultSessionFile(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
  return join(base, 'appliance-admin', 'session.json');
}

const modeText = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');

/** The stored session, or null when there is none. Refuses a file others could read. */
export function readSession(file: string): StoredSession | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SessionFileError(`cannot read the session file ${file}: ${(err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SessionFileError(`the session file ${file} is not a regular file`);
    if (process.platform !== 'win32') {
      if ((st.mode & 0o077) !== 0) {
        throw new SessionFileError(
          `the session file ${file} can be read by other users (mode ${modeText(st.mode)}), so it is not used; run: chmod 600 ${file} (or appliance-admin logout and sign in again)`,
        );
      }
      if (process.getuid && st.uid !== process.getuid()) {
        throw new SessionFileError(
          `the session file ${file} belongs to another user (uid ${st.uid}), so it is not used`,
        );
      }
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(fd, 'utf8'));
    } catch {
      parsed = undefined;
    }
    const session = storedSessionOf(parsed);
    if (!session)
      throw new SessionFileError(
        `the session file ${file} is damaged; run: appliance-admin logout, then sign in again`,
      );
    return session;
  } finally {
    closeSync(fd);
  }
}

/** Writes the session atomically: a 0600 temp file in the 0700 folder, synced, renamed over. */
export function writeSession(file: string, session: StoredSession): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32' && (statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  const tmp = join(
    dir,
    `.session.${process.pid}.${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString('hex')}.tmp`,
  );
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    const checked = storedSessionOf(session);
    if (!checked) throw new SessionFileError('refusing to store an incomplete sign-in');
    writeSync(fd, `${JSON.stringify(checked, null, 2)}\n`);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  syncDir(dir);
}

/** Removes the session file; true when there was one. */
export function removeSession(file: string): boolean {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new SessionFileError(`cannot remove the session file ${file}: ${(err as Error).message}`);
  }
  syncDir(dirname(file));
  return true;
}

function syncDir(dir: string) {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not every platform can sync a directory; the rename itself is still atomic
  }
}

/** A holder that runs longer than this is presumed gone (two provider requests, each with a timeout, fit well inside). */
const LOCK_STALE_MS = 45_000;
const LOCK_WAIT_MS = 50_000;

/**
 * Runs fn while holding `<file>.lock`, so that two processes sharing the session (two dashboards,
 * a dashboard and a login) never both spend the same refresh token: a provider that rotates
 * refresh tokens treats the second use as theft and revokes the whole sign-in.
 */
export async function withSessionLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new SessionFileError(`cannot lock the session file ${file}: ${(err as Error).message}`);
    }
    if (isStale(lock)) rmSync(lock, { force: true });
    else if (Date.now() > deadline)
      throw new SessionFileError(
        `the session file ${file} stayed locked by another appliance-admin; if none runs, remove ${lock}`,
      );
    else await new Promise((resolve) => setTimeout(resolve, 25 + Math.random() * 50));
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** A lock whose holder has exited (crashed mid-renewal) or that is older than any renewal takes. */
function isStale(lock: string): boolean {
  try {
    if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) return true;
    const pid = Number(readFileSync(lock, 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return false; // being written right now
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
