import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Role } from '../../../src/contract/index.js';

/** The built CLI (`npm run bench` builds dist first) as the server under test, in its own process. */
export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = join(REPO, 'bin', 'appliance-admin.cjs');
const START_TIMEOUT_MS = 120_000;

export function ensureDist(): void {
  if (!existsSync(join(REPO, 'dist', 'cli.js')))
    execFileSync(process.execPath, [join(REPO, 'scripts', 'build.mjs')], { cwd: REPO, stdio: 'inherit' });
}

const cliEnv = () => ({ ...process.env, NODE_OPTIONS: '' });

/** `appliance-admin token issue`: the token (printed alone on stdout). */
export function issueToken(dataDir: string, role: Role, name: string): string {
  ensureDist();
  return execFileSync(process.execPath, [CLI, 'token', 'issue', '--data', dataDir, '--role', role, '--name', name], {
    cwd: REPO,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: cliEnv(),
  }).trim();
}

export interface CliServer {
  /** origin, e.g. http://127.0.0.1:40123 */
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL after 10 s */
  stop(): Promise<void>;
}

/** `appliance-admin serve --data DIR --port 0 [extra]`, resolved once it prints where it listens. */
export async function startServer(dataDir: string, extra: string[] = []): Promise<CliServer> {
  ensureDist();
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--data', dataDir, '--host', '127.0.0.1', '--port', '0', '--log-level', 'warn', ...extra],
    {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: cliEnv(),
    },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err = (err + d).slice(-4000);
  });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start in ${START_TIMEOUT_MS / 1000} s: ${err}`)),
      START_TIMEOUT_MS,
    );
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (https?:\/\/[^\s/]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening: ${err}`));
    });
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      process.off('exit', killOnExit);
    },
  };
}

/** A process's resident memory from /proc, in bytes (total and anonymous). */
export function processRss(pid: number): { total: number; anon: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { total: kb('VmRSS'), anon: kb('RssAnon') };
}
