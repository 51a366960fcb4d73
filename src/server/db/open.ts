import Database, { type Db as SqliteDb } from './sqlite-driver.js';
import { join } from 'node:path';
import { migrations } from './migrations.js';
import { createPrivateFile, DataDirError, ensureDataDir, makePrivate } from './data-dir.js';

export { DataDirError, ensureDataDir } from './data-dir.js';

export type Db = SqliteDb;
export const DB_FILE = 'appliance-admin.db';

/** Opens (creating if needed) the database in dataDir, in WAL mode, and applies pending migrations. */
export function openDatabase(dataDir: string): Db {
  ensureDataDir(dataDir);
  const file = join(dataDir, DB_FILE);
  // Made 0600 before SQLite creates it with 0644 (minus the umask); its -wal and -shm files
  // take the database file's mode. Ones left from before with looser modes are tightened.
  try {
    createPrivateFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new DataDirError(`cannot create ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) makePrivate(f);
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
    if ((err as Error).name === 'SqliteError')
      throw new DataDirError(
        `cannot open the database ${file}: ${(err as Error).message} (${(err as NodeJS.ErrnoException).code})`,
      );
    throw err;
  }
}

export function migrate(db: Db): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      m.run?.(db);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    })();
  }
}
