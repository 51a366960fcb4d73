import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/server/app.js';
import { ServerConfig } from '../../src/server/config.js';
import { LOCK_FILE } from '../../src/server/db/lock.js';
import { DataDirError, openDatabase } from '../../src/server/db/open.js';
import { escapeRegExp } from '../helpers/e2e.js';
import { startTestServer } from '../helpers/server.js';

/** `serve --data DIR`: the folder is made when missing, and a folder that cannot be is a clear error. */
const root = mkdtempSync(join(tmpdir(), 'aa-data-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the data directory', () => {
  it('is made with its missing parents, private to the user', () => {
    const dir = join(root, 'a', 'b', 'data');
    const db = openDatabase(dir);
    db.close();
    expect(existsSync(join(dir, 'appliance-admin.db'))).toBe(true);
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // and opened again as it is
    openDatabase(dir).close();
  });

  it('under a file is refused in words', () => {
    writeFileSync(join(root, 'file'), 'x');
    expect(() => openDatabase(join(root, 'file', 'data'))).toThrow(DataDirError);
    expect(() => openDatabase(join(root, 'file', 'data'))).toThrow(/data directory .* is not writable \(ENOTDIR\)/);
  });

  it.runIf(existsSync('/proc/self'))(
    'under /proc is refused at once, not retried for ever (Node recursive mkdir does)',
    () => {
      expect(() => openDatabase('/proc/appliance-admin-test/data')).toThrow(/not writable \(ENOENT\)/);
    },
  );
});

describe('one server per data directory', () => {
  it('a second server on a directory in use is refused before it touches anything; the first keeps its jobs', async () => {
    const a = await startTestServer();
    try {
      const running = a.server.db.prepare(
        "INSERT INTO jobs (job_id, connector_id, source_id, state, created_at, started_at) VALUES ('job_live', 'conn_erp', 'src_erp', 'running', '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z')",
      );
      running.run();
      await expect(buildServer({ dataDir: a.dataDir, config: a.config })).rejects.toThrow(
        new RegExp(
          `data directory ${escapeRegExp(a.dataDir)} is in use by another appliance-admin server \\(pid ${process.pid}\\)`,
        ),
      );
      // the second server's start-up recovery did not run: the first server's job is still running
      expect(a.server.db.prepare("SELECT state FROM jobs WHERE job_id = 'job_live'").pluck().get()).toBe('running');
    } finally {
      await a.close();
    }
    expect(existsSync(join(a.dataDir, LOCK_FILE))).toBe(false);
    const b = await buildServer({ dataDir: a.dataDir, config: a.config });
    await b.close();
  });

  it('takes over the lock of a server that died without releasing it', async () => {
    const dir = join(root, 'stale');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(dir, LOCK_FILE), `${dead.stdout}\n`);
    const s = await buildServer({ dataDir: dir, config: ServerConfig.parse({}) });
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`);
    await s.close();
  });
});
