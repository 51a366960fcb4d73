import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { CLI, ensureBuilt } from '../helpers/child-server.js';
import { e2eTitle, until } from '../helpers/e2e.js';
import { tempDir } from '../helpers/fixtures.js';
import { hasTmux, killTmuxServer, TmuxSession } from '../helpers/tmux.js';

/**
 * `npm start` (the built CLI's demo) in a real terminal that then goes away, as when an SSH
 * session drops, or is interrupted: the dashboard must still stop the embedded demo server and
 * remove its data directory, and end without an error report or Node's abort on a terminal that
 * is gone.
 */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!hasTmux())(e2eTitle('the terminal hangs up under the demo dashboard'), () => {
  afterAll(killTmuxServer);

  it('stops the demo server, removes its data directory and ends quietly', async () => {
    await ensureBuilt();
    const tmp = tempDir('aa-hangup');
    const demoDirs = () => readdirSync(tmp).filter((n) => n.startsWith('appliance-admin-demo-'));
    const t = await TmuxSession.start({
      name: 'hangup',
      command: [process.execPath, CLI, 'demo'],
      env: { TMPDIR: tmp },
    });
    await t.waitForScreen('● connected', 30_000);
    expect(demoDirs()).toHaveLength(1);
    const dashboard = Number(execFileSync('pgrep', ['-P', String(await t.panePid())], { encoding: 'utf8' }).trim());
    expect(alive(dashboard)).toBe(true);

    await t.hangUp();
    await until('the dashboard to end', () => !alive(dashboard), 15_000);
    expect(demoDirs()).toEqual([]);
    const stderr = await t.stderr();
    expect(stderr).not.toMatch(/unexpected error|Unhandled 'error'|Assertion failed|EIO/);
  }, 60_000);

  it('stops as cleanly on SIGINT (a terminal out of raw mode turns Ctrl-C into one)', async () => {
    const tmp = tempDir('aa-sigint');
    const demoDirs = () => readdirSync(tmp).filter((n) => n.startsWith('appliance-admin-demo-'));
    const t = await TmuxSession.start({
      name: 'sigint',
      command: [process.execPath, CLI, 'demo'],
      env: { TMPDIR: tmp },
    });
    await t.waitForScreen('● connected', 30_000);
    const shell = await t.panePid();
    const dashboard = Number(execFileSync('pgrep', ['-P', String(shell)], { encoding: 'utf8' }).trim());
    // as the terminal sends it: to the whole foreground process group (the demo server too)
    process.kill(-shell, 'SIGINT');
    await until('the dashboard to end', () => !alive(dashboard), 15_000);
    expect(demoDirs()).toEqual([]);
    expect(await t.stderr()).not.toMatch(/unexpected error/);
  }, 60_000);
});
