import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirError, openDatabase } from '../../src/server/db/open.js';

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

  it.runIf(existsSync('/proc/self'))('under /proc is refused at once, not retried for ever (Node recursive mkdir does)', () => {
    expect(() => openDatabase('/proc/appliance-admin-test/data')).toThrow(/not writable \(ENOENT\)/);
  });
});
