import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureConfig } from '../../helpers/fixtures.js';
import { issueToken, REPO, startServer, type CliServer } from './cli-server.js';
import { nowMs } from './stats.js';

/**
 * The built dashboard (`node bin/appliance-admin.cjs --url … --token-file …`) in a real
 * pseudo-terminal, through util-linux `script`: what a person runs, nothing injected. The
 * benchmark reads the terminal's output (escape sequences stripped) to see frames, and types
 * through script's stdin, which script copies to the terminal.
 */

export const CLI = join(REPO, 'bin', 'appliance-admin.cjs');
/** the first connector of test/helpers/fixtures.ts: on screen only once connector data arrived */
export const CONNECTOR_TEXT = 'Team share';
/**
 * the overview's data has arrived: the header's age of its first resource (the deployment), which
 * says "loading…" until then. The board's lines depend on what needs attention (an audit trail
 * with denied attempts adds one), the header does not.
 */
export const OVERVIEW_TEXT = 'updated ';

export function requireScript(): void {
  if (!existsSync('/usr/bin/script'))
    throw new Error('these benchmarks need util-linux script (/usr/bin/script; Debian: apt-get install -y util-linux)');
}

// CSI (colours, cursor, erase), OSC (title, clipboard), charset selection, keypad modes

const ANSI = /\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78cM]/g;
export const stripAnsi = (s: string) => s.replace(ANSI, '');
const SEQUENCE_AT = new RegExp(ANSI.source, 'y');
/** a whole escape sequence starts at `at` */
function startsWithSequence(s: string, at: number): boolean {
  SEQUENCE_AT.lastIndex = at;
  return SEQUENCE_AT.test(s);
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Written by the shell inside the pseudo-terminal just before it execs the program: an empty
 * window-title sequence, invisible on a terminal. Its arrival is when the program was launched.
 */
const EXEC_MARK = '\x1b]2;\x07';

export interface PtyProcess {
  /** hrtime ms when spawn was called */
  readonly startedAt: number;
  /**
   * ms since start when the shell inside the terminal exec'd the program (script's start, its
   * pseudo-terminal and stty before it): subtract it from waitFor's answer for the time since the
   * program was launched. Both crossed the same pseudo-terminal, so its copying cancels out.
   */
  execAt(): number;
  readonly child: ChildProcess;
  /** everything the terminal showed so far, escape sequences stripped */
  text(): string;
  /** ms since start when `needle` first appeared (resolves at once if it already has) */
  waitFor(needle: string, timeoutMs?: number): Promise<number>;
  /** keys as a terminal sends them (e.g. '\t', 'q') */
  send(keys: string): void;
  /** the pid of the program inside the terminal (script's child) */
  programPid(): number;
  /** 'q', then SIGTERM after 3 s, SIGKILL after 6 s; resolves when script exited */
  quit(): Promise<void>;
  exited: Promise<number | null>;
}

export interface PtyOptions {
  cols?: number;
  rows?: number;
  /** extra node options before the script (e.g. --import a bench probe) */
  nodeArgs?: string[];
  env?: NodeJS.ProcessEnv;
  /** run this instead of node + CLI (e.g. node -e 0 for the pty's own cost) */
  command?: string[];
}

/** `script -qfc "stty cols C rows R; printf EXEC_MARK; exec node [nodeArgs] bin/appliance-admin.cjs ARGS" /dev/null` */
export function launchInPty(args: string[], o: PtyOptions = {}): PtyProcess {
  requireScript();
  const argv = o.command ?? [process.execPath, ...(o.nodeArgs ?? []), CLI, ...args];
  const cmd = `stty cols ${o.cols ?? 120} rows ${o.rows ?? 32}; printf '\\033]2;\\007'; exec ${argv.map(quote).join(' ')}`;
  const startedAt = nowMs();
  const child = spawn('script', ['-q', '-f', '-E', 'never', '-c', cmd, '/dev/null'], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '', CI: undefined, CONTINUOUS_INTEGRATION: undefined, ...o.env },
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let text = '';
  let pending = '';
  let execAt: number | undefined;
  const waiters: { needle: string; resolve(t: number): void }[] = [];
  const seen = new Map<string, number>();
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    const at = nowMs() - startedAt;
    // an escape sequence may be split between reads: strip whole ones only
    const raw = pending + d;
    if (execAt === undefined && raw.includes(EXEC_MARK)) execAt = at;
    const cut = raw.lastIndexOf('\x1b');
    const keep = cut >= 0 && raw.length - cut < 32 && !startsWithSequence(raw, cut) ? raw.slice(cut) : '';
    pending = keep;
    text += stripAnsi(keep ? raw.slice(0, cut) : raw);
    if (text.length > 2_000_000) text = text.slice(-1_000_000);
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (text.includes(waiters[i].needle)) {
        seen.set(waiters[i].needle, at);
        waiters[i].resolve(at);
        waiters.splice(i, 1);
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', () => undefined);
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<number | null>((res) =>
    child.once('exit', (code) => {
      process.off('exit', killOnExit);
      res(code);
    }),
  );
  return {
    startedAt,
    execAt() {
      if (execAt === undefined) throw new Error('the program has not been launched in the terminal yet');
      return execAt;
    },
    child,
    text: () => text,
    exited,
    waitFor(needle, timeoutMs = 20_000) {
      const at = seen.get(needle);
      if (at !== undefined) return Promise.resolve(at);
      if (text.includes(needle)) return Promise.resolve(nowMs() - startedAt);
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `"${needle}" did not appear within ${timeoutMs} ms; the terminal showed:\n${text.slice(-3000)}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          needle,
          resolve: (t) => {
            clearTimeout(timer);
            resolve(t);
          },
        });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(
            new Error(
              `the program ended (exit ${code}) before "${needle}" appeared; the terminal showed:\n${text.slice(-3000)}`,
            ),
          );
        });
      });
    },
    send(keys) {
      child.stdin!.write(keys);
    },
    programPid() {
      const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean);
      if (kids.length !== 1) throw new Error(`script has ${kids.length} children`);
      return Number(kids[0]);
    },
    async quit() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin!.write('q');
      const t1 = setTimeout(() => child.kill('SIGTERM'), 3000);
      const t2 = setTimeout(() => child.kill('SIGKILL'), 6000);
      await exited;
      clearTimeout(t1);
      clearTimeout(t2);
    },
  };
}

/** A command that exits by itself: ms from spawn to exit (stdio ignored). */
export function timeExit(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const c = spawn(argv[0], argv.slice(1), {
      cwd: REPO,
      stdio: 'ignore',
      env: { ...process.env, NODE_OPTIONS: '', ...env },
    });
    c.once('error', reject);
    c.once('exit', (code) =>
      code === 0 ? resolve(nowMs() - t0) : reject(new Error(`${argv.join(' ')} exited ${code}`)),
    );
  });
}

export interface FixtureServer {
  url: string;
  tokenFile: string;
  server: CliServer;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * The built CLI server (`serve --config`) in its own process, with the test fixtures' connectors,
 * channels and models and no demo traffic (`demo: true` runs `serve --demo` instead), and an
 * it_admin token in a 0600 file.
 */
export async function startFixtureServer(
  outDir: string,
  label: string,
  o: { demo?: boolean } = {},
): Promise<FixtureServer> {
  const root = join(outDir, `work-${label}-${process.pid}`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const dataDir = join(root, 'data');
  mkdirSync(dataDir, { recursive: true });
  const extra: string[] = [];
  if (o.demo) extra.push('--demo');
  else {
    const cfg = join(root, 'config.json');
    writeFileSync(cfg, JSON.stringify(fixtureConfig(root)));
    extra.push('--config', cfg);
  }
  const server = await startServer(dataDir, extra);
  const tokenFile = join(root, 'token');
  writeFileSync(tokenFile, `${issueToken(dataDir, 'it_admin', `bench-${label}`)}\n`, { mode: 0o600 });
  return {
    url: server.url,
    tokenFile,
    server,
    dataDir,
    close: async () => {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** utime + stime of a process in ms (/proc/PID/stat, clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
