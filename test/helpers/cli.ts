import { spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ensureBuilt, REPO } from './child-server.js';
import { tempDir } from './fixtures.js';

export interface CliRun { code: number | null; stdout: string; stderr: string }

/**
 * Runs the built CLI (bin/appliance-admin.cjs) as a child and collects its output. Asynchronous
 * on purpose: the server under test usually lives in this same process and must keep answering.
 * Call ensureBuilt() (child-server.ts) once before.
 */
export async function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliRun> {
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
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', APPLIANCE_ADMIN_TOKEN: undefined, ...opts.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`appliance-admin ${args.join(' ')} did not finish in ${opts.timeoutMs ?? 15_000} ms\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 15_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A token in a fresh 0600 file, the way an operator hands it to the CLI. */
export function writeTokenFile(token: string): string {
  const file = join(tempDir('aa-token'), 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
