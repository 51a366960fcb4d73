import pino, { type Logger } from 'pino';
import type { Db } from './db/sqlite-driver.js';
import { redact } from './host/redact.js';
import { iso } from './ids.js';

/**
 * The server's background work (ingestion jobs, the demo's traffic, the refused-request counts,
 * work after a commit, the kept signed head) runs through here under a task name, so that nothing
 * it meets ends the process: an error is caught, logged as one line (the task, a short reason with
 * no secret in it, how many failures in a row, when it is tried again), and kept for the deployment
 * status (the `background-tasks` component) until the task next succeeds.
 */

/** A task that failed and has not succeeded since. */
export interface TaskFailure {
  task: string;
  /** one short line, sanitized: no URL query, user info or credential */
  error: string;
  /** failures in a row */
  failures: number;
  /** the first failure of this run, and the latest */
  since: string;
  last_at: string;
  /** when or how it is tried again, in words */
  retry: string;
}

/** How long a failed task waits before its next try: `firstMs`, doubled per failure in a row, up to `maxMs`. */
export interface RetryPolicy {
  firstMs: number;
  maxMs: number;
}
const DEFAULT_RETRY: RetryPolicy = { firstMs: 1000, maxMs: 60_000 };

const MAX_ERROR_CHARS = 160;
/** This appliance's own credentials (admin tokens, gateway key secrets), a bearer, a signed token. */
const CREDENTIALS = [/\b(?:aat|agk)_[\w-]+/g, /\bBearer\s+\S+/gi, /\beyJ[\w-]+\.[\w-]+\.[\w-]*/g];

/**
 * What went wrong, in one short line for the log and /deployment: the error's code (SQLITE_FULL,
 * EACCES) and the first line of its message, each cause after a colon, URLs redacted as settings
 * are, credentials replaced.
 */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const x = e as { code?: unknown; message?: unknown; cause?: unknown };
    const message = String(typeof x === 'object' ? (x.message ?? x) : x).split('\n')[0];
    const code = typeof x.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(x.code) ? x.code : null;
    parts.push(code && !message.includes(code) ? `${code}: ${message}` : message);
    e = typeof x === 'object' ? x.cause : undefined;
  }
  let text = redact(parts.filter(Boolean).join(': ') || 'unknown error') as string;
  for (const pattern of CREDENTIALS) text = text.replace(pattern, '[redacted]');
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}

/** Where in the code it was thrown (a stack frame names a file and line, never data). */
const thrownAt = (err: unknown): string | undefined =>
  (err as Error)?.stack
    ?.split('\n')
    .find((l) => /^\s+at /.test(l))
    ?.trim();

const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);

/** A task run again and again, or until it succeeds. */
export interface Repeating {
  /** false once it stopped or (untilDone) succeeded */
  readonly active: boolean;
  /** stops it; waits for a run in progress */
  stop(): Promise<void>;
}

export class BackgroundTasks {
  private readonly failing = new Map<string, TaskFailure>();
  private readonly running = new Set<Repeating>();
  /** once the server is closing: nothing is scheduled again */
  private closed = false;

  constructor(
    private readonly log: Logger,
    readonly retry: RetryPolicy = DEFAULT_RETRY,
  ) {}

  /** The wait before the next try after `inRow` failures in a row, at least `baseMs`. */
  backoff(inRow: number, baseMs = this.retry.firstMs): number {
    return Math.min(this.retry.maxMs, Math.max(baseMs, this.retry.firstMs) * 2 ** Math.max(0, inRow - 1));
  }

  /** `fn` now as task `name`: its value, or undefined when it threw (logged, and kept until the task next succeeds). */
  run<T>(name: string, fn: () => T, retry: string): T | undefined {
    let value: T;
    try {
      value = fn();
    } catch (err) {
      this.failed(name, err, retry);
      return undefined;
    }
    this.succeeded(name);
    return value;
  }

  /**
   * `fn` as task `name` every `everyMs` (measured from the end of the last run; a function is asked
   * each time), the first time after `firstMs`. After a failure the next run waits longer: the
   * interval doubled per failure in a row, up to the policy's maximum. Runs never overlap; the
   * timer is unref'd.
   */
  repeat(
    name: string,
    opts: { everyMs: number | (() => number); firstMs?: number },
    fn: () => void | Promise<void>,
  ): Repeating {
    const every = typeof opts.everyMs === 'number' ? () => opts.everyMs as number : opts.everyMs;
    let timer: NodeJS.Timeout | undefined;
    let inFlight: Promise<void> | undefined;
    let stopped = false;
    let inRow = 0;
    const arm = (ms: number) => {
      if (stopped || this.closed) return;
      timer = setTimeout(() => {
        timer = undefined;
        inFlight = tick().finally(() => (inFlight = undefined));
      }, ms);
      timer.unref();
    };
    const tick = async () => {
      let next: number;
      try {
        await fn();
        inRow = 0;
        this.succeeded(name);
        next = every();
      } catch (err) {
        next = this.backoff(++inRow, every());
        this.failed(name, err, `tried again in ${seconds(next)}`);
      }
      arm(next);
    };
    const handle: Repeating = {
      get active() {
        return !stopped;
      },
      stop: async () => {
        stopped = true;
        clearTimeout(timer);
        await inFlight;
        this.running.delete(handle);
      },
    };
    this.running.add(handle);
    arm(opts.firstMs ?? every());
    return handle;
  }

  /**
   * `fn` (synchronous) as task `name` now, and after a failure again after the policy's wait,
   * doubled per failure in a row, until it succeeds or is stopped. `now()` tries again at once.
   */
  untilDone(name: string, fn: () => void): Repeating & { now(): void } {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    let inRow = 0;
    const attempt = () => {
      if (done) return;
      clearTimeout(timer);
      timer = undefined;
      try {
        fn();
      } catch (err) {
        const wait = this.backoff(++inRow);
        this.failed(
          name,
          err,
          this.closed ? 'not tried again: the server is closing' : `tried again in ${seconds(wait)}`,
        );
        if (this.closed) return;
        timer = setTimeout(attempt, wait);
        timer.unref();
        return;
      }
      done = true;
      this.running.delete(handle);
      this.succeeded(name);
    };
    const handle = {
      get active() {
        return !done;
      },
      now: attempt,
      stop: async () => {
        done = true;
        clearTimeout(timer);
        this.running.delete(handle);
      },
    };
    this.running.add(handle);
    attempt();
    return handle;
  }

  /** Task `name` succeeded: it is no longer failing. */
  succeeded(name: string): void {
    const f = this.failing.get(name);
    if (!f) return;
    this.failing.delete(name);
    this.safely(() => this.log.info({ task: name, failures: f.failures, since: f.since }, 'background task recovered'));
  }

  /**
   * Task `name` failed with `err`; `retry` says when or how it is tried again. Logged as one line
   * unless the caller logged it already (`log: false`). Never throws.
   */
  failed(name: string, err: unknown, retry: string, opts: { log?: boolean } = {}): void {
    this.safely(() => {
      const at = iso();
      const error = describeError(err);
      const before = this.failing.get(name);
      const f: TaskFailure = {
        task: name,
        error,
        failures: (before?.failures ?? 0) + 1,
        since: before?.since ?? at,
        last_at: at,
        retry,
      };
      this.failing.set(name, f);
      if (opts.log !== false)
        this.log.warn(
          { task: name, error, failures: f.failures, retry, thrown_at: thrownAt(err) },
          'background task failed',
        );
    });
  }

  /** The tasks failing now, by name. */
  failures(): TaskFailure[] {
    return [...this.failing.values()].sort((a, b) => a.task.localeCompare(b.task));
  }

  /** Stops every repeating task, and schedules none from now on (before the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running].map((r) => r.stop()));
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch {
      // the log itself failed: the failure is still kept, or was already
    }
  }
}

const registry = new WeakMap<Db, BackgroundTasks>();

/** The server's background tasks, on its database (at start, with its logger and retry policy). */
export function attachBackgroundTasks(db: Db, log: Logger, retry?: RetryPolicy): BackgroundTasks {
  const tasks = new BackgroundTasks(log, retry);
  registry.set(db, tasks);
  return tasks;
}

/** The background tasks of the server on `db`; a host command's own, unlogged, when no server attached them. */
export function backgroundTasks(db: Db): BackgroundTasks {
  let tasks = registry.get(db);
  if (!tasks) registry.set(db, (tasks = new BackgroundTasks(pino({ level: 'silent' }))));
  return tasks;
}
