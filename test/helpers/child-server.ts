import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import type { Role } from '../../src/contract/index.js';
import type { ServerConfig } from '../../src/server/config.js';
import { tempDir } from './fixtures.js';

/**
 * The built CLI server as a child process, for tests that must stop, kill or restart the real
 * thing: `start(dataDir)` runs `appliance-admin serve --data DIR --port 0`, reads the URL it
 * prints, and hands back its pid, its output and ways to stop, kill and restart it.
 */
export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = join(REPO, 'bin', 'appliance-admin.cjs');
const DIST_ENTRY = join(REPO, 'dist', 'cli.js');
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;

export interface StartOptions {
  /** a config object (written to a temp file) or the path of a config file */
  config?: ServerConfig | string;
  /** defaults to 0 (any free port) */
  port?: number;
  /** extra serve arguments, e.g. ['--tls-cert', f, '--tls-key', g] */
  args?: string[];
  /** run as another user (root only), from a copy of the CLI that user can read (cli-copy.ts) */
  as?: { uid: number; gid: number; cli: string };
}

export interface ChildServer {
  /** origin, e.g. http://127.0.0.1:40123 (the API is under /v1/admin) */
  url: string;
  /** the URL the server printed (…/v1/admin) */
  apiUrl: string;
  port: number;
  pid: number;
  dataDir: string;
  /** everything the process wrote so far */
  stdout(): string;
  stderr(): string;
  /** SIGTERM and wait for a clean exit (SIGKILL after 10 s); resolves with the exit code */
  stop(): Promise<number | null>;
  /** send a signal (default SIGKILL) and wait for the process to end */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** resolves when the process has ended */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** stop it if it still runs, then start it again on the same data directory and port */
  restart(): Promise<ChildServer>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts the built server on dataDir (building dist first when src is newer). */
export async function start(dataDir: string, opts: StartOptions = {}): Promise<ChildServer> {
  await ensureBuilt();
  const args = [
    opts.as?.cli ?? CLI,
    'serve',
    '--data',
    dataDir,
    '--host',
    '127.0.0.1',
    '--port',
    String(opts.port ?? 0),
    ...(opts.args ?? []),
  ];
  if (opts.config !== undefined)
    args.push('--config', typeof opts.config === 'string' ? opts.config : writeConfig(opts.config));
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    // another user may be unable to enter the checkout or this run's temp folder
    ...(opts.as
      ? { cwd: '/', uid: opts.as.uid, gid: opts.as.gid, env: { PATH: process.env.PATH, TMPDIR: '/tmp' } }
      : { cwd: REPO, env: { ...process.env, NODE_OPTIONS: '' } }),
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      res({ code, signal });
    });
  });

  const apiUrl = await new Promise<string>((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error(`server did not start within ${START_TIMEOUT_MS} ms\nstderr: ${err}`)),
      START_TIMEOUT_MS,
    );
    const onData = () => {
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      res(m[1]);
    };
    child.stdout!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`server exited (${code ?? signal}) before listening\nstderr: ${err}`));
    });
  });
  const url = new URL(apiUrl).origin;
  const port = Number(new URL(apiUrl).port);

  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    return child.exitCode;
  };
  return {
    url,
    apiUrl,
    port,
    pid: child.pid!,
    dataDir,
    exited,
    kill,
    stop,
    stdout: () => out,
    stderr: () => err,
    restart: async () => {
      await stop();
      return start(dataDir, { ...opts, port });
    },
  };
}

/** Issues an admin token with the CLI (`token issue`), which prints the token alone on stdout. */
export async function issueToken(
  dataDir: string,
  role: Role,
  name = `${role}-${Math.random().toString(36).slice(2, 8)}`,
): Promise<string> {
  await ensureBuilt();
  const out = execFileSync(
    process.execPath,
    [CLI, 'token', 'issue', '--data', dataDir, '--role', role, '--name', name],
    {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    },
  );
  return out.trim();
}

function writeConfig(config: ServerConfig): string {
  const file = join(tempDir('aa-config'), 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const newestMtime = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((max, e) => {
    const p = join(dir, e.name);
    return Math.max(max, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }, 0);

/** The build bundles src/ and screens/: dist is stale when either changed. */
const newestSource = () => Math.max(newestMtime(join(REPO, 'src')), newestMtime(join(REPO, 'screens')));

const distMtime = () => {
  try {
    return statSync(DIST_ENTRY).mtimeMs;
  } catch {
    return -1;
  }
};

/**
 * Runs `node scripts/build.mjs` when dist is missing or older than src. Test files run in
 * parallel processes: a lock directory keeps them from building over each other.
 */
export async function ensureBuilt(): Promise<void> {
  const lock = join(
    tmpdir(),
    `appliance-admin-build-${createHash('sha1').update(REPO).digest('hex').slice(0, 8)}.lock`,
  );
  for (const deadline = Date.now() + 120_000; ;) {
    if (distMtime() >= newestSource()) return;
    try {
      mkdirSync(lock);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // another process builds; a lock older than two minutes was left by a crash
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`waited too long for the build lock ${lock}`);
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (distMtime() >= newestSource()) return;
      execFileSync(process.execPath, [join(REPO, 'scripts', 'build.mjs')], {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      return;
    } catch (err) {
      const e = err as { stderr?: Buffer; message: string };
      throw new Error(`node scripts/build.mjs failed: ${e.stderr?.toString() || e.message}`);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
