import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError } from './open.js';

export const LOCK_FILE = 'appliance-admin.lock';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One server per data directory: a second one would take the first one's running ingestion jobs
 * for interrupted ones (its start-up recovery), and both would run jobs for one source. The lock
 * is a file holding the owner's pid, created exclusively; one whose process is gone (a crash, a
 * kill -9) is taken over. Returns the release. The CLI's token commands do not take it: they may
 * run beside the server.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      let held = true;
      return () => {
        if (held) rmSync(file, { force: true });
        held = false;
      };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new DataDirError(`cannot lock the data directory ${dataDir} (${code ?? 'error'})`);
    }
    let owner = NaN;
    try {
      owner = Number(readFileSync(file, 'utf8').trim());
    } catch {
      /* removed meanwhile: try again */
    }
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
      throw new DataDirError(
        `data directory ${dataDir} is in use by another appliance-admin server (pid ${owner}); stop it first`,
      );
    }
    rmSync(file, { force: true }); // its process is gone
  }
  throw new DataDirError(`cannot lock the data directory ${dataDir}: ${LOCK_FILE} keeps coming back`);
}
