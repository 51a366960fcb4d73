import Database, { type Db as SqliteDb } from './sqlite-driver.js';
import { mkdirSync, accessSync, constants, existsSync, closeSync, openSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { migrations } from './migrations.js';

export type Db = SqliteDb;
export const DB_FILE = 'appliance-admin.db';

export class DataDirError extends Error {
  override name = 'DataDirError';
}

/** Opens (creating if needed) the database in dataDir, in WAL mode, and applies pending migrations. */
export function openDatabase(dataDir: string): Db {
  ensureDataDir(dataDir);
  const file = join(dataDir, DB_FILE);
  // Made 0600 before SQLite creates it with 0644 (minus the umask); its -wal and -shm files
  // take the database file's mode.
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new DataDirError(`cannot create ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let db: Db | undefined;
  try {
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    return db;
  } catch (err) {
    db?.close();
    // a damaged or foreign file, a full disk: the operator's to fix, said in one line
    if ((err as Error).name === 'SqliteError') throw new DataDirError(`cannot open the database ${file}: ${(err as Error).message} (${(err as NodeJS.ErrnoException).code})`);
    throw err;
  }
}

/**
 * The data directory, created with mode 0700 (and its missing parents) if it does not exist; an
 * existing one keeps its mode. Call it before anything writes into the directory.
 */
export function ensureDataDir(dataDir: string): void {
  try {
    makeDirs(dataDir);
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    throw new DataDirError(`data directory ${dataDir} is not writable (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
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
    } catch (err) {
      // made meanwhile by another process: fine, the write check that follows decides
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

export function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
    })();
  }
}
