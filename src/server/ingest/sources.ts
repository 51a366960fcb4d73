import { lstat, opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import Database, { type Db as SqliteDb } from '../db/sqlite-driver.js';
import type { ConnectorConfig, SourceConfig } from '../config.js';

/** What one read of a source found. `note` marks a partial read (limit reached, parts unreadable). */
export interface ReadResult {
  items: number;
  bytes?: number;
  note?: string;
}

export interface ReadLimits {
  /** directory entries visited, or rows counted, before the read stops */
  maxEntries: number;
  signal: AbortSignal;
}

/** A failure whose message is fit to show an operator as the job's error. */
export class SourceReadError extends Error {}

export const missingPathReason = (path: string) => `${path} does not exist (ENOENT)`;

const fsReason = (err: unknown, path: string): string => {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'ENOENT':
      return missingPathReason(path);
    case 'EACCES':
    case 'EPERM':
      return `permission denied reading ${path} (${e.code})`;
    case 'ENOTDIR':
      return `${path} is not a directory (ENOTDIR)`;
    default:
      return `cannot read ${path}: ${e.code ?? e.message}`;
  }
};

/**
 * Walks a directory tree without following symlinks and counts regular files and their bytes.
 * Asynchronous throughout so a large tree never blocks the event loop; stops after
 * maxEntries entries and says so in `note`.
 */
export async function readDirectory(root: string, limits: ReadLimits): Promise<ReadResult> {
  try {
    if (!(await stat(root)).isDirectory()) throw new SourceReadError(`${root} is not a directory`);
  } catch (err) {
    if (err instanceof SourceReadError) throw err;
    throw new SourceReadError(fsReason(err, root));
  }
  let files = 0;
  let bytes = 0;
  let entries = 0;
  let unreadable = 0;
  let truncated = false;
  const pending = [root];
  walk: while (pending.length) {
    const dirPath = pending.pop()!;
    let dir;
    try {
      dir = await opendir(dirPath);
    } catch (err) {
      if (dirPath === root) throw new SourceReadError(fsReason(err, root));
      unreadable++;
      continue;
    }
    for await (const entry of dir) {
      limits.signal.throwIfAborted();
      if (++entries > limits.maxEntries) {
        truncated = true;
        break walk;
      }
      const full = join(dirPath, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) {
        try {
          bytes += (await lstat(full)).size;
          files++;
        } catch {
          // removed while we walked: not read, not counted
        }
      }
    }
  }
  const notes = [
    truncated ? `stopped after ${limits.maxEntries} entries (limit)` : '',
    unreadable ? `${unreadable} unreadable ${unreadable === 1 ? 'directory' : 'directories'} skipped` : '',
  ].filter(Boolean);
  return { items: files, bytes, note: notes.length ? `partial read: ${notes.join('; ')}` : undefined };
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The tables an ingestion counts rows of: user tables only (not views, virtual or shadow tables). */
export function userTables(db: SqliteDb): string[] {
  return (db.pragma('table_list') as { schema: string; name: string; type: string }[])
    .filter((t) => t.schema === 'main' && t.type === 'table' && !t.name.startsWith('sqlite_'))
    .map((t) => t.name);
}

/**
 * Opens a SQLite file read-only and counts the rows of its user tables (not views, virtual or
 * shadow tables). Each count is capped by what is left of maxEntries, so a huge table costs
 * a bounded scan.
 */
export async function readSqlite(file: string, limits: ReadLimits): Promise<ReadResult> {
  try {
    if (!(await stat(file)).isFile()) throw new SourceReadError(`${file} is not a file`);
  } catch (err) {
    if (err instanceof SourceReadError) throw err;
    throw new SourceReadError(fsReason(err, file));
  }
  let db: SqliteDb;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new SourceReadError(`cannot open ${file} as SQLite: ${(err as Error).message}`);
  }
  try {
    let tables: string[];
    try {
      tables = userTables(db);
    } catch (err) {
      throw new SourceReadError(`cannot read ${file} as SQLite: ${(err as Error).message}`);
    }
    let rows = 0;
    const partial = () => ({
      items: limits.maxEntries,
      note: `partial read: stopped after ${limits.maxEntries} rows (limit)`,
    });
    for (const table of tables) {
      // between tables: an abort is noticed
      await new Promise((r) => setImmediate(r));
      limits.signal.throwIfAborted();
      const left = limits.maxEntries - rows;
      // one row past the limit tells a table that fills it exactly from one that overflows it
      const n = db
        .prepare(`SELECT count(*) FROM (SELECT 1 FROM ${quoteIdent(table)} LIMIT ?)`)
        .pluck()
        .get(left + 1) as number;
      if (n > left) return partial();
      rows += n;
    }
    return { items: rows };
  } finally {
    db.close();
  }
}

/** Strips credentials and query from a URL before it appears in an error. */
function displayUrl(url: string | undefined): string {
  if (!url) return 'this source (no url configured)';
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'this source (unparseable url)';
  }
}

/** Why a remote source cannot be read: no driver for its kind ships with the appliance. */
export const remoteSourceError = (connector: ConnectorConfig, source: SourceConfig) =>
  `no ${connector.kind} driver is installed on this host to reach ${displayUrl(source.url)}`;

/** Reads one configured source the way its type says. Throws SourceReadError with a clear reason. */
export async function readSource(
  connector: ConnectorConfig,
  source: SourceConfig,
  limits: ReadLimits,
): Promise<ReadResult> {
  switch (source.type) {
    case 'directory':
      if (!source.path) throw new SourceReadError('directory source has no path configured');
      return readDirectory(source.path, limits);
    case 'sqlite':
      if (!source.path) throw new SourceReadError('sqlite source has no path configured');
      return readSqlite(source.path, limits);
    case 'remote':
      throw new SourceReadError(remoteSourceError(connector, source));
  }
}
