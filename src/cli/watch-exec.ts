/**
 * `watch --exec CMD`: CMD run by the shell once per event, the event as one JSON line on its
 * stdin (for mail, a chat hook, a pager). One at a time, in the order of the events, each within
 * a time limit; a command that fails, hangs or cannot start is said on stderr and the watch goes
 * on: the queue never holds up the polls. The bearer token is not in the command's environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** Events waiting while a command runs; past this the oldest are dropped (and said). */
const MAX_WAITING = 100;
/** After a stopped command's SIGTERM, how long before SIGKILL. */
const KILL_AFTER_MS = 2000;
/** What of a failed command's stderr is kept to quote its last line. */
const KEEP_STDERR = 4096;

interface Job {
  json: string;
  /** what the event is, for the messages: `new CRIT Connector Cloud CRM` */
  label: string;
  env: Record<string, string>;
}

export class ExecQueue {
  readonly #command: string;
  readonly #timeoutMs: number;
  readonly #say: (line: string) => void;
  readonly #waiting: Job[] = [];
  #running: { child: ChildProcess; done: Promise<void> } | null = null;
  #dropped = 0;
  #closed = false;

  constructor(command: string, timeoutMs: number, say: (line: string) => void) {
    this.#command = command;
    this.#timeoutMs = timeoutMs;
    this.#say = say;
  }

  /** Hands an event to the command (after the ones before it). */
  push(json: string, label: string, env: Record<string, string> = {}) {
    if (this.#closed) return;
    this.#waiting.push({ json, label, env });
    if (this.#waiting.length > MAX_WAITING) {
      this.#waiting.shift();
      if (this.#dropped++ === 0)
        this.#say(
          `--exec is behind by more than ${MAX_WAITING} events: the oldest are dropped (counted when it catches up)`,
        );
    }
    this.#next();
  }

  /** Stops taking events; waits up to `graceMs` for the command running now and those waiting, then stops it. */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    const deadline = Date.now() + graceMs;
    while (this.#running && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#running.done, new Promise((r) => (timer = setTimeout(r, deadline - Date.now())))]);
      clearTimeout(timer);
    }
    if (this.#running) {
      stop(this.#running.child, 'SIGKILL');
      await this.#running.done;
    }
    if (this.#waiting.length) this.#say(`--exec: ${this.#waiting.length} event(s) not handed on: the watch stopped`);
    this.#waiting.length = 0;
  }

  #next() {
    if (this.#running) return;
    const job = this.#waiting.shift();
    if (!job) return;
    if (this.#dropped && !this.#waiting.length) {
      this.#say(`--exec caught up; ${this.#dropped} event(s) were dropped while it was behind`);
      this.#dropped = 0;
    }
    this.#running = this.#run(job);
    void this.#running.done.then(() => {
      this.#running = null;
      this.#next();
    });
  }

  #run(job: Job): { child: ChildProcess; done: Promise<void> } {
    const env: NodeJS.ProcessEnv = { ...process.env, ...job.env };
    delete env.APPLIANCE_ADMIN_TOKEN; // the command gets the event, never the credential
    const child = spawn(this.#command, {
      shell: true,
      env,
      stdio: ['pipe', 'ignore', 'pipe'],
      // its own process group: a command stopped for its time stops with what it started (| mail)
      detached: process.platform !== 'win32',
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-KEEP_STDERR);
    });
    child.stdin?.on('error', () => undefined); // a command that does not read its stdin is not a failure
    child.stdin?.end(`${job.json}\n`);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stop(child, 'SIGTERM');
      setTimeout(() => stop(child, 'SIGKILL'), KILL_AFTER_MS).unref();
    }, this.#timeoutMs);
    const done = new Promise<void>((resolve) => {
      child.once('error', (err) => {
        clearTimeout(timer);
        this.#say(`--exec could not run the command for ${job.label}: ${err.message}; the watch goes on`);
        resolve();
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        const last = stderr.trim().split('\n').at(-1);
        const said = last ? `; it said: ${last}` : '';
        if (timedOut)
          this.#say(
            `--exec did not finish within ${this.#timeoutMs / 1000} s for ${job.label}: stopped; the watch goes on`,
          );
        else if (code !== 0)
          this.#say(
            `--exec failed for ${job.label} (${signal ? `signal ${signal}` : `exit ${code}`})${said}; the watch goes on`,
          );
        resolve();
      });
    });
    return { child, done };
  }
}

/** The command and what it started (its process group), or the command alone where there are none. */
function stop(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    if (process.platform !== 'win32') process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}
