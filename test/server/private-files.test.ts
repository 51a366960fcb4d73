import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError, DB_FILE, ensureDataDir, openDatabase } from '../../src/server/db/open.js';
import { DEMO_LOG_FILE, startEmbeddedDemo } from '../../src/cli/embedded-demo.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { worldReadableCli, type CliCopy } from '../helpers/cli-copy.js';
import { tempDir } from '../helpers/fixtures.js';

/**
 * The data directory is 0700 and every file the appliance writes in it 0600 (the database, its
 * -wal and -shm, the demo's log), whatever the umask; ones found looser at start are tightened,
 * and one that cannot be is refused in words.
 */
const mode = (path: string) => statSync(path).mode & 0o7777;

function withUmask<T>(umask: number, fn: () => T): T {
  const old = process.umask(umask);
  try {
    return fn();
  } finally {
    process.umask(old);
  }
}

/** A database as an older version left it: everything readable by all. */
function looseDatabase(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const db = openDatabase(dir);
  db.prepare('CREATE TABLE IF NOT EXISTS t (x)').run();
  chmodSync(dir, 0o755);
  for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) chmodSync(join(dir, f), 0o644);
  db.close();
  // closing checkpoints and removes -wal and -shm: leave ones behind as a crash would
  for (const f of [`${DB_FILE}-wal`, `${DB_FILE}-shm`]) writeFileSync(join(dir, f), '', { mode: 0o644 });
  for (const f of [`${DB_FILE}-wal`, `${DB_FILE}-shm`]) chmodSync(join(dir, f), 0o644);
}

describe('private data directory', () => {
  it('is made 0700 and its database files 0600 under any umask (0277 would leave them unwritable, 0 open to all)', () => {
    for (const umask of [0o277, 0o000]) {
      const dir = join(tempDir('aa-private'), 'new', 'data');
      const db = withUmask(umask, () => openDatabase(dir));
      try {
        db.prepare('CREATE TABLE t (x)').run();
        expect(mode(dir), umask.toString(8)).toBe(0o700);
        for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`])
          expect(mode(join(dir, f)), `${f} ${umask.toString(8)}`).toBe(0o600);
      } finally {
        db.close();
      }
    }
  });

  it('an existing directory, database, -wal and -shm open to others are tightened at start', () => {
    const dir = join(tempDir('aa-private'), 'data');
    looseDatabase(dir);
    openDatabase(dir).close();
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, DB_FILE))).toBe(0o600);
    // a crash leaves -wal and -shm: tightened before SQLite opens them
    looseDatabase(dir);
    const db = openDatabase(dir);
    try {
      for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) expect(mode(join(dir, f)), f).toBe(0o600);
    } finally {
      db.close();
    }
  });

  it('a shared directory (sticky bit, like /tmp) is refused, not made private', () => {
    const shared = join(tempDir('aa-private'), 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    expect(() => ensureDataDir(shared)).toThrow(DataDirError);
    expect(() => ensureDataDir(shared)).toThrow(
      `data directory ${shared} is a shared directory (sticky bit, like /tmp): use a directory of its own inside it`,
    );
    expect(mode(shared)).toBe(0o1777);
  });

  it("the embedded demo's log is 0600, a loose one from before is tightened, and so is the directory", async () => {
    const dataDir = join(tempDir('aa-private-demo'), 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    // a database the server refuses: the demo stops at once, after its log is opened
    writeFileSync(join(dataDir, DB_FILE), 'not a database, just text that SQLite refuses\n'.repeat(100));
    const err = await withUmask(0o022, () => startEmbeddedDemo({ dataDir })).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/exited before it was ready/);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, DEMO_LOG_FILE))).toBe(0o600);

    chmodSync(join(dataDir, DEMO_LOG_FILE), 0o644);
    await startEmbeddedDemo({ dataDir }).catch(() => undefined);
    expect(mode(join(dataDir, DEMO_LOG_FILE))).toBe(0o600);
  }, 60_000);
});

// Needs root, to give the files to another user and run the CLI as that user (nobody): a copy of
// the built CLI that nobody can read, wherever the checkout is (a clone in /root or mktemp -d).
describe.runIf(process.getuid?.() === 0)("a loose file that is not the user's own", () => {
  const NOBODY = 65534;
  let copy: CliCopy;
  beforeAll(async () => {
    await ensureBuilt();
    copy = worldReadableCli();
  }, 180_000);
  afterAll(() => copy?.remove());

  it('is refused with why, and left as it is', () => {
    const dir = join(copy.root, 'data');
    looseDatabase(dir);
    chmodSync(dir, 0o700);
    chownSync(dir, NOBODY, NOBODY); // the directory is nobody's, the database root's (0644)
    const db = join(dir, DB_FILE);
    const r = spawnSync(process.execPath, [copy.cli, 'token', 'list', '--data', dir], {
      cwd: copy.root,
      uid: NOBODY,
      gid: NOBODY,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, TMPDIR: '/tmp' },
    });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `appliance-admin: ${db} is open to group or others (mode 0644) and cannot be made private: it belongs to uid 0, not to this user (uid ${NOBODY}); its owner can run chmod go= ${db}\n`,
    );
    expect(r.status).toBe(1);
    expect(mode(db)).toBe(0o644);
    expect(existsSync(join(dir, 'appliance-admin.lock'))).toBe(false);
  });
});
