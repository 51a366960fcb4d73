import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { CLI, REPO, ensureBuilt } from '../helpers/child-server.js';
import { tempDir } from '../helpers/fixtures.js';

/**
 * Issue 37 §7: the server's log is written to stderr, which an operator may send to a disk that
 * fills up. A log line that cannot be written (ENOSPC: /dev/full) is lost; the appliance goes on
 * answering and stops cleanly. Before, the log stream's error had no listener and ended the process.
 */
describe('serve with its log on a full disk', () => {
  it.skipIf(!existsSync('/dev/full'))('keeps answering, and stops with exit 0 on SIGTERM', async () => {
    await ensureBuilt();
    const full = openSync('/dev/full', 'w');
    const child = spawn(
      process.execPath,
      [
        CLI,
        'serve',
        '--data',
        join(tempDir('aa-log-full'), 'data'),
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--log-level',
        'info',
      ],
      { stdio: ['ignore', 'pipe', full], cwd: REPO, env: { ...process.env, NODE_OPTIONS: '' } },
    );
    closeSync(full);
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    try {
      let out = '';
      const url = await new Promise<string>((res, rej) => {
        child.stdout!.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          const m = /listening on (http:\/\/[^\s/]+)/.exec(out);
          if (m) res(m[1]);
        });
        void exited.then((code) => rej(new Error(`serve exited with ${code} before listening`)));
      });
      // every request is logged (info), and every line fails to be written
      for (let i = 0; i < 30; i++) {
        const r = await request(`${url}/v1/admin/session`);
        await r.body.dump();
        expect(r.statusCode).toBe(401);
      }
      expect(child.exitCode).toBeNull();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
