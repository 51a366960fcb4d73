import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLI, ensureBuilt, REPO } from './child-server.js';
import { tempDir } from './fixtures.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program (a packaged appliance-admin: the single file, an installed tarball's bin) and
 * collects its exit code and output; a non-zero exit is a result, a failure to start is thrown.
 */
export async function runProgram(
  file: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeout?: number } = {},
): Promise<CliRun> {
  try {
    const r = await promisify(execFile)(file, args, { ...opts, encoding: 'utf8' });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/**
 * Runs the built CLI (bin/appliance-admin.cjs) as a child and collects its output. Asynchronous
 * on purpose: the server under test usually lives in this same process and must keep answering.
 * Call ensureBuilt() (child-server.ts) once before.
 */
export async function runCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliRun> {
  const first = await runOnce(args, opts);
  // Another test process rebuilt dist/ while this one started (a source file changed during the
  // run): the CLI failed before doing anything, so wait for that build and run it again.
  if (first.code !== 0 && /ERR_MODULE_NOT_FOUND[\s\S]*\/dist\//.test(first.stderr)) {
    await ensureBuilt();
    return runOnce(args, opts);
  }
  return first;
}

function runOnce(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CliRun> {
  const run = spawnCli(args, opts);
  const ms = opts.timeoutMs ?? 15_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill('SIGKILL');
      reject(new Error(`appliance-admin ${args.join(' ')} did not finish in ${ms} ms\nstderr: ${run.stderr()}`));
    }, ms);
  });
  return Promise.race([run.done, timeout]).finally(() => clearTimeout(timer));
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** resolves with the exit code and all output once the process has ended */
  done: Promise<CliRun>;
}

/** The built CLI started as a child, for a test that talks to it while it runs (a sign-in, a server). */
export function spawnCli(args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): CliProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: '',
    APPLIANCE_ADMIN_TOKEN: undefined,
    // what the CLI remembers between runs (checkpoints verified, a witness's state) stays in this test run
    XDG_STATE_HOME: testStateDir(),
    ...opts.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const done = new Promise<CliRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

let stateDir: string | undefined;
/** One XDG state directory for this test process's CLI runs, unless a test gives its own. */
const testStateDir = () => (stateDir ??= tempDir('aa-xdg-state'));

/** A token in a fresh 0600 file, the way an operator hands it to the CLI. */
export function writeTokenFile(token: string): string {
  const file = join(tempDir('aa-token'), 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
