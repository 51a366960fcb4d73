import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Role } from '../contract/index.js';
import { createPrivateFile, ensureDataDir, makePrivate } from '../server/db/data-dir.js';
import type { ReadyMessage } from '../server/demo/ipc-ready.js';

export const DEMO_LOG_FILE = 'demo-server.log';
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;

export interface EmbeddedDemo {
  /** the demo appliance's base URL on loopback */
  url: string;
  tokens: Record<Role, string>;
  dataDir: string;
  logFile: string;
  pid: number;
  /** SIGTERM, wait for exit (SIGKILL after a grace period), remove the temp dir it created */
  stop(): Promise<void>;
}

export class EmbeddedDemoError extends Error {
  override name = 'EmbeddedDemoError';
}

/**
 * How to run the CLI in a child: the bundled bin next to dist/ (production), or the sources under
 * tsx when this module itself runs from source (tests, development).
 */
function cliEntry(): { script: string; execArgv: string[]; cwd: string | undefined } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    return {
      script: join(dirname(here), 'serve-entry.ts'),
      execArgv: ['--import', 'tsx'],
      cwd: resolve(dirname(here), '../..'),
    };
  }
  // bundled: this code lives in a chunk directly under dist/
  const script = fileURLToPath(new URL('../bin/appliance-admin.cjs', import.meta.url));
  return { script, execArgv: [], cwd: undefined };
}

function logTail(file: string, bytes = 2000): string {
  try {
    const text = readFileSync(file, 'utf8');
    return text.length > bytes ? `…${text.slice(-bytes)}` : text;
  } catch {
    return '(no log written)';
  }
}

/** The log names the data directory's files and the demo's requests: private like the database. */
function privateLog(dataDir: string, logFile: string): void {
  ensureDataDir(dataDir);
  try {
    createPrivateFile(logFile);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  makePrivate(logFile);
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      done(false);
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      done(true);
    };
    child.once('exit', onExit);
  });
}

/**
 * Starts the demo appliance in a child process (`serve --demo` on a free loopback port) and
 * resolves once it is ready, with its URL and one token per role, which arrive over the IPC
 * channel only. The child logs to a file in its data directory, and shuts down by itself if this
 * process goes away.
 */
export async function startEmbeddedDemo(
  opts: { dataDir?: string; readyTimeoutMs?: number } = {},
): Promise<EmbeddedDemo> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = resolve(opts.dataDir ?? mkdtempSync(join(tmpdir(), 'appliance-admin-demo-')));
  const cleanup = () => {
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const logFile = join(dataDir, DEMO_LOG_FILE);
  const { script, execArgv, cwd } = cliEntry();
  if (!existsSync(script)) {
    cleanup();
    throw new EmbeddedDemoError(`cannot start the demo server: ${script} is missing (run \`npm run build\`)`);
  }

  let log: number;
  try {
    privateLog(dataDir, logFile);
    log = openSync(logFile, 'a');
  } catch (err) {
    cleanup();
    throw err;
  }
  let child: ChildProcess;
  try {
    // warn: the generator's and the dashboard's polling requests would grow the log all session long
    child = fork(
      script,
      [
        'serve',
        '--demo',
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--data',
        dataDir,
        '--log-level',
        'warn',
        '--ipc-ready',
      ],
      {
        execArgv,
        cwd,
        stdio: ['ignore', log, log, 'ipc'],
      },
    );
  } catch (err) {
    cleanup();
    throw err;
  } finally {
    closeSync(log);
  }

  let ready: ReadyMessage;
  try {
    ready = await new Promise<ReadyMessage>((resolveReady, reject) => {
      const fail = (why: string) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.off('error', onError);
        reject(new EmbeddedDemoError(`the demo server ${why}; last lines of ${logFile}:\n${logTail(logFile)}`));
      };
      const onMessage = (msg: unknown) => {
        const m = msg as Partial<ReadyMessage> | null;
        if (m?.type !== 'ready' || typeof m.url !== 'string' || !m.tokens) return;
        clearTimeout(timer);
        child.off('exit', onExit);
        child.off('error', onError);
        child.off('message', onMessage);
        resolveReady(m as ReadyMessage);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        fail(`exited before it was ready (${signal ? `signal ${signal}` : `exit code ${code}`})`);
      const onError = (err: Error) => fail(`could not be started: ${err.message}`);
      const timer = setTimeout(
        () => fail(`did not report ready within ${Math.round((opts.readyTimeoutMs ?? READY_TIMEOUT_MS) / 1000)} s`),
        opts.readyTimeoutMs ?? READY_TIMEOUT_MS,
      );
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.once('error', onError);
    });
  } catch (err) {
    if (!exited(child)) {
      child.kill('SIGKILL');
      await waitForExit(child, STOP_GRACE_MS);
    }
    cleanup();
    throw err;
  }

  // Neither the child nor its channel keeps this process alive; if this process ends without
  // stop(), the channel closes and the child shuts itself down.
  child.unref();
  child.channel?.unref();

  let stopping: Promise<void> | undefined;
  return {
    url: ready.url,
    tokens: ready.tokens,
    dataDir,
    logFile,
    pid: child.pid!,
    stop: () =>
      (stopping ??= (async () => {
        if (!exited(child)) {
          child.kill('SIGTERM');
          if (!(await waitForExit(child, STOP_GRACE_MS))) {
            child.kill('SIGKILL');
            await waitForExit(child, STOP_GRACE_MS);
          }
        }
        if (child.connected) child.disconnect();
        cleanup();
      })()),
  };
}
