import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { CLI, ensureBuilt } from '../helpers/child-server.js';
import { writeTokenFile } from '../helpers/cli.js';
import { e2eTitle, until } from '../helpers/e2e.js';
import { tempDir } from '../helpers/fixtures.js';
import { hasTmux, killTmuxServer, TmuxSession } from '../helpers/tmux.js';

/**
 * Issue 37 §6: against an appliance that drip-feeds its answers, quitting took 10–19 s (the
 * dashboard waited for the requests in flight). Quitting, by `q`, Ctrl-C or SIGTERM, restores the
 * terminal at once and abandons the requests: the BUILT dashboard in a real terminal (tmux) must be
 * gone, its terminal restored, within QUIT_BOUND_MS of the key or signal.
 *
 * No real appliance does this, so the appliance here is a stand-in: every request is answered
 * with a 200 and its headers, then one byte a second of a body that never ends (never silent long
 * enough for the client's idle timeouts, always short of its 30 s deadline for the whole answer).
 */
/**
 * Far under the 30 s the dashboard waited before (its per-call deadline), with room for a loaded CI
 * host: at 3 s the SIGTERM case failed once in a clean-clone run while ten test files ran beside it.
 * Quitting takes about 1.1 s here (docs/operations.md says 1.5 s); how fast is a benchmark's to say.
 */
const QUIT_BOUND_MS = 10_000;

interface Drip {
  url: string;
  /** answers being dripped now */
  open(): number;
  close(): Promise<void>;
}

async function startDrip(): Promise<Drip> {
  const dripping = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(' ');
    dripping.add(res);
    const t = setInterval(() => res.write(' '), 1_000);
    res.on('close', () => {
      clearInterval(t);
      dripping.delete(res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    open: () => dripping.size,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** The dashboard's process: the child of the `sh` that keeps the pane, itself the pane's child. */
const childOf = (pid: number) =>
  Number(
    execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')[0],
  );
const dashboardPid = async (term: TmuxSession) => childOf(childOf(await term.panePid()));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!hasTmux())(e2eTitle('quitting the dashboard of an appliance that drip-feeds'), () => {
  let drip: Drip;
  let t: TmuxSession | undefined;

  beforeAll(async () => {
    await ensureBuilt();
    drip = await startDrip();
  }, 120_000);
  afterEach(async () => {
    await t?.kill();
    t = undefined;
  });
  afterAll(async () => {
    await killTmuxServer();
    await drip?.close();
  });

  /** The built dashboard on the drip, its first frame drawn and its polls hanging on the drip. */
  async function dashboardOnDrip(name: string): Promise<TmuxSession> {
    const before = drip.open();
    t = await TmuxSession.start({
      name,
      cwd: tempDir('aa-quit-cwd'),
      // The pane outlives the dashboard by a second: tmux reports a dead pane's cursor as hidden whatever
      // the program left, so the restored terminal is read while the pane still lives.
      command: [
        'sh',
        '-c',
        '"$0" "$@"; status=$?; sleep 1; exit $status',
        process.execPath,
        CLI,
        '--url',
        drip.url,
        '--token-file',
        writeTokenFile('drip-token'),
      ],
      env: {
        NODE_OPTIONS: '',
        LANG: 'C.UTF-8',
        LC_ALL: 'C.UTF-8',
        XDG_CACHE_HOME: tempDir('aa-quit-cache'),
        XDG_CONFIG_HOME: tempDir('aa-quit-config'),
      },
    });
    await t.waitForScreen('q quit', 30_000);
    await until('requests hanging on the drip', () => drip.open() > before, 10_000);
    expect(await t.paneFormat('#{alternate_on}')).toBe('1');
    return t;
  }

  /**
   * Within the bound of the key or signal (`since`): the alternate screen left and the cursor shown
   * (as tmux has read them: it reads the terminal's output on its own time), and the program ended
   * with `status`.
   */
  async function quitsAtOnce(term: TmuxSession, since: number, status: number) {
    const restored = async () => (await term.paneFormat('#{alternate_on} #{cursor_flag}')) === '0 1';
    while (!(await restored())) {
      if (Date.now() - since > QUIT_BOUND_MS)
        throw new Error(`the terminal was not restored within ${QUIT_BOUND_MS} ms:\n${await term.capture()}`);
      await new Promise((r) => setTimeout(r, 40));
    }
    const exited = await term.waitForExit(Math.max(0, since + QUIT_BOUND_MS - Date.now()));
    expect(Date.now() - since).toBeLessThan(QUIT_BOUND_MS);
    expect(exited).toBe(status);
    expect(await term.stderr()).not.toMatch(/unexpected error/);
  }

  it('q: exits at once, the terminal restored (it waited up to 30 s)', async () => {
    const term = await dashboardOnDrip('quit-q');
    const since = Date.now();
    await term.sendKeys('q');
    await quitsAtOnce(term, since, 0);
  }, 60_000);

  it('Ctrl-C: the same', async () => {
    const term = await dashboardOnDrip('quit-ctrl-c');
    const since = Date.now();
    await term.type('\x03');
    await quitsAtOnce(term, since, 0);
  }, 60_000);

  it('SIGTERM: the same', async () => {
    const term = await dashboardOnDrip('quit-sigterm');
    const dashboard = await dashboardPid(term);
    expect(alive(dashboard)).toBe(true);
    const since = Date.now();
    process.kill(dashboard, 'SIGTERM');
    await quitsAtOnce(term, since, 0);
  }, 60_000);

  it('the terminal hangs up (SIGHUP, then EIO): the dashboard ends as soon', async () => {
    const term = await dashboardOnDrip('quit-hangup');
    const dashboard = await dashboardPid(term);
    const since = Date.now();
    await term.hangUp();
    await until('the dashboard to end', () => !alive(dashboard), QUIT_BOUND_MS);
    expect(Date.now() - since).toBeLessThan(QUIT_BOUND_MS);
    expect(await term.stderr()).not.toMatch(/unexpected error|Assertion failed/);
  }, 60_000);
});
