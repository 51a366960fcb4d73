import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A real terminal for end-to-end tests: a detached tmux session on a private server socket
 * (`tmux -L aa-e2e-<pid>`, no user config), so a test never touches the user's own tmux.
 */
const run = promisify(execFile);
const TMUX_SOCKET = `aa-e2e-${process.pid}`;
const BASE = ['-L', TMUX_SOCKET, '-f', '/dev/null'];

/** Pause between keys: the app paces bursts itself; this only keeps ESC from fusing with the next key. */
const KEY_PACE_MS = 15;
const AFTER_ESCAPE_MS = 60;
const POLL_MS = 40;

let available: boolean | undefined;
export function hasTmux(): boolean {
  if (available === undefined) {
    try {
      execFileSync('tmux', ['-V'], { stdio: 'ignore' });
      available = true;
    } catch {
      available = false;
    }
  }
  return available;
}

/** Key names for send-keys; anything else is sent as literal text. */
const SPECIAL: Record<string, string> = {
  enter: 'Enter',
  esc: 'Escape',
  tab: 'Tab',
  'shift-tab': 'BTab',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  pgup: 'PPage',
  pgdn: 'NPage',
  home: 'Home',
  end: 'End',
  backspace: 'BSpace',
  space: 'Space',
};

const tmux = async (...args: string[]) => (await run('tmux', [...BASE, ...args], { encoding: 'utf8' })).stdout;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface StartOptions {
  /** session name (unique per test file is enough: the socket is per process) */
  name: string;
  /** the program and its arguments; run through the shell, each argument quoted */
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
}

export class TmuxSession {
  private constructor(
    readonly name: string,
    private readonly dir: string,
  ) {}

  /**
   * `tmux new -d -s NAME -x 120 -y 40 'cmd'`. A small sh wrapper keeps the program's stderr and
   * exit status in files: tmux 3.3 clears a dead pane, and its #{pane_dead_status} is sometimes
   * never filled in (it can mark the pane dead on the pty's EOF and not reap the child).
   */
  static async start(o: StartOptions): Promise<TmuxSession> {
    const env = Object.entries(o.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const cwd = o.cwd ? ['-c', o.cwd] : [];
    const dir = mkdtempSync(join(tmpdir(), 'aa-tmux-'));
    const script = `${o.command.map(quote).join(' ')} 2> ${quote(join(dir, 'stderr'))}; echo $? > ${quote(join(dir, 'status'))}`;
    started = true;
    await tmux(
      'new-session',
      '-d',
      '-s',
      o.name,
      '-x',
      String(o.cols ?? 120),
      '-y',
      String(o.rows ?? 40),
      ...cwd,
      ...env,
      `/bin/sh -c ${quote(script)}`,
      ';',
      'set-option',
      '-w',
      '-t',
      o.name,
      'remain-on-exit',
      'on',
    );
    return new TmuxSession(o.name, dir);
  }

  /** Key names (enter, esc, tab, shift-tab, arrows, pgup, pgdn, home, end, backspace, space) or literal text, one after another. */
  async sendKeys(...keys: string[]): Promise<void> {
    for (const k of keys) {
      const special = SPECIAL[k];
      if (special) await tmux('send-keys', '-t', this.name, special);
      else await tmux('send-keys', '-t', this.name, '-l', '--', k);
      await pause(special === 'Escape' ? AFTER_ESCAPE_MS : KEY_PACE_MS);
    }
  }

  /** Literal text in one burst (the app splits it into keys). */
  async type(text: string): Promise<void> {
    await tmux('send-keys', '-t', this.name, '-l', '--', text);
    await pause(KEY_PACE_MS);
  }

  /**
   * Pastes `text` as a terminal does (tmux paste-buffer -p): inside ESC[200~ … ESC[201~ when the
   * program turned bracketed paste on, else as plain typed input. Line feeds arrive as CR.
   */
  async paste(text: string): Promise<void> {
    const buffer = `paste-${this.name}`;
    await tmux('set-buffer', '-b', buffer, '--', text);
    await tmux('paste-buffer', '-p', '-d', '-b', buffer, '-t', this.name);
    await pause(KEY_PACE_MS);
  }

  /** What the terminal shows now, as plain text. */
  capture(): Promise<string> {
    return tmux('capture-pane', '-p', '-t', this.name);
  }

  /** Waits until the screen matches; the error carries the last screen. */
  async waitForScreen(pattern: RegExp | string, timeoutMs = 10_000): Promise<string> {
    return this.waitUntil(
      (s) => (typeof pattern === 'string' ? s.includes(pattern) : pattern.test(s)),
      String(pattern),
      timeoutMs,
    );
  }

  /** Waits until the screen no longer matches. */
  async waitForGone(pattern: RegExp | string, timeoutMs = 10_000): Promise<string> {
    return this.waitUntil(
      (s) => !(typeof pattern === 'string' ? s.includes(pattern) : pattern.test(s)),
      `${String(pattern)} to go away`,
      timeoutMs,
    );
  }

  async waitUntil(pred: (screen: string) => boolean, what: string, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      last = await this.capture();
      if (pred(last)) return last;
      if (Date.now() > deadline) {
        const dead = await this.exitStatus();
        const err = await this.stderr();
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what}${dead !== null ? ` (the program exited with ${dead})` : ''}; the screen:\n${last}${err ? `\nstderr:\n${err}` : ''}`,
        );
      }
      await pause(POLL_MS);
    }
  }

  /** The program's exit status once it has ended (128 + n after signal n), else null. */
  async exitStatus(): Promise<number | null> {
    const text = await readFile(join(this.dir, 'status'), 'utf8').catch(() => '');
    return /^\d+\n$/.test(text) ? Number(text.trim()) : null;
  }

  /** What the program wrote to stderr so far (the terminal shows only stdout). */
  stderr(): Promise<string> {
    return readFile(join(this.dir, 'stderr'), 'utf8').catch(() => '');
  }

  async waitForExit(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = await this.exitStatus();
      if (s !== null) return s;
      if (Date.now() > deadline)
        throw new Error(
          `the program in ${this.name} did not exit within ${timeoutMs} ms; the screen:\n${await this.capture()}\nstderr:\n${await this.stderr()}`,
        );
      await pause(POLL_MS);
    }
  }

  /** A tmux format of the pane, e.g. `#{alternate_on}` (1 while the program keeps the alternate screen). */
  async paneFormat(format: string): Promise<string> {
    return (await tmux('display-message', '-p', '-t', this.name, format)).trim();
  }

  /** The pid of the pane's shell wrapper (the program runs as its child). */
  async panePid(): Promise<number> {
    return Number((await tmux('display-message', '-p', '-t', this.name, '#{pane_pid}')).trim());
  }

  /** Closes the terminal under the program, as a dropped SSH session does (SIGHUP, then EIO); keeps stderr() readable. */
  async hangUp(): Promise<void> {
    await tmux('kill-session', '-t', this.name);
  }

  async kill(): Promise<void> {
    await tmux('kill-session', '-t', this.name).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Ends this process's private tmux server (every session on it) and removes its socket file. */
export async function killTmuxServer(): Promise<void> {
  await tmux('kill-server').catch(() => undefined);
  // where tmux puts a -L socket (its manual); the server may leave the file behind
  rmSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, TMUX_SOCKET), { force: true });
}

// A run that dies half-way must not leave dashboards behind in a detached tmux.
let started = false;
process.once('exit', () => {
  if (!started) return;
  try {
    execFileSync('tmux', [...BASE, 'kill-server'], { stdio: 'ignore' });
  } catch {
    /* no server was started, or it is gone already */
  }
});
