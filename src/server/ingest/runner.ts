import type { Logger } from 'pino';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { failUnfinishedJobs, finishJob, getJob, markRunning, refreshConnectorStates } from './job-store.js';
import { SourceReadError } from './sources.js';
import { readSourceInWorker } from './read-in-worker.js';
import { backgroundTasks, type BackgroundTasks, type Repeating } from '../background.js';

const RESTART_REASON = 'interrupted by server restart';
const SHUTDOWN_REASON = 'interrupted by server shutdown';
const MAX_ENTRIES = 100_000;
/** The background task (background.ts) that records the end of ingestion jobs. */
const INGEST_TASK = 'ingestion-jobs';

/**
 * Test seam: while `until` is set, a job waits for it right after it is marked running, so a
 * test can hold a job in flight deterministically. Shutdown still interrupts a held job.
 */
export const jobHold: { until: Promise<void> | null } = { until: null };

const errorText = (err: unknown): string =>
  (err instanceof SourceReadError ? err.message : `unexpected error: ${(err as Error)?.message ?? String(err)}`).slice(
    0,
    500,
  );

/**
 * Runs ingestion jobs in the background, each queued -> running -> succeeded|failed.
 * A job never throws out of here: whatever goes wrong (a reader thread that crashed included) ends
 * it `failed` with a reason. An end that cannot be recorded (SQLITE_BUSY, a full disk) is kept and
 * recorded again with backoff as the INGEST_TASK background task (background.ts), shown on
 * /deployment meanwhile; the job stays active until then.
 * Each source is read in a worker thread (read-in-worker.ts), so that a large source never holds
 * the event loop. On shutdown, running jobs are aborted (their worker is ended) and
 * end `failed` with SHUTDOWN_REASON; close() waits until each has written its final row.
 */
export class IngestRunner {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  /** ends not recorded yet, oldest first */
  private readonly unrecorded = new Map<string, Parameters<typeof finishJob>[3]>();
  private recording: (Repeating & { now(): void }) | undefined;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly config: ServerConfig,
    private readonly log: Logger,
    private readonly maxEntries = MAX_ENTRIES,
    private readonly tasks: BackgroundTasks = backgroundTasks(db),
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** At startup: whatever a previous process left queued or running can never finish now. */
  recover(): void {
    const n = failUnfinishedJobs(this.db, this.config, RESTART_REASON);
    if (n) this.log.warn({ jobs: n }, 'ingestion jobs interrupted by a restart marked failed');
    refreshConnectorStates(this.db, this.config);
  }

  /** Starts a queued job in the background. */
  start(jobId: string): void {
    if (this.closed) {
      this.finish(jobId, { state: 'failed', items: 0, error: SHUTDOWN_REASON });
      return;
    }
    const abort = new AbortController();
    const done = this.run(jobId, abort.signal).finally(() => this.running.delete(jobId));
    this.running.set(jobId, { abort, done });
  }

  private async run(jobId: string, signal: AbortSignal): Promise<void> {
    const started = Date.now();
    try {
      const job = getJob(this.db, jobId);
      if (!job || !markRunning(this.db, jobId)) return;
      const connector = this.config.connectors.find((c) => c.id === job.connector_id);
      const source = connector?.sources.find((s) => s.id === job.source_id);
      if (!connector || !source) {
        this.finish(jobId, { state: 'failed', items: 0, error: 'connector or source is no longer configured' });
        return;
      }
      if (jobHold.until) await Promise.race([jobHold.until, aborted(signal)]);
      signal.throwIfAborted();
      const result = await readSourceInWorker(connector, source, { maxEntries: this.maxEntries, signal });
      this.finish(jobId, { state: 'succeeded', items: result.items, error: result.note ?? null });
      this.log.info(
        { job_id: jobId, items: result.items, bytes: result.bytes, duration_ms: Date.now() - started },
        'ingestion job succeeded',
      );
    } catch (err) {
      const error = signal.aborted ? SHUTDOWN_REASON : errorText(err);
      this.finish(jobId, { state: 'failed', items: 0, error });
      if (!(err instanceof SourceReadError) && !signal.aborted)
        this.log.error({ err, job_id: jobId }, 'ingestion job crashed');
      else this.log.info({ job_id: jobId, duration_ms: Date.now() - started }, 'ingestion job failed');
    }
  }

  /** Records the job's end now, or keeps it to record again until it can be (the row stays active meanwhile). */
  private finish(jobId: string, outcome: Parameters<typeof finishJob>[3]): void {
    this.unrecorded.set(jobId, outcome);
    if (this.recording?.active) this.recording.now();
    else this.recording = this.tasks.untilDone(INGEST_TASK, () => this.recordEnds());
  }

  /** Every end not recorded yet, oldest first; throws at the first that cannot be (the rest wait). */
  private recordEnds(): void {
    for (const [jobId, outcome] of this.unrecorded) {
      try {
        finishJob(this.db, this.config, jobId, outcome);
      } catch (err) {
        const n = this.unrecorded.size;
        throw new Error(`the end of job ${jobId}${n > 1 ? ` and ${n - 1} more` : ''} cannot be recorded`, {
          cause: err,
        });
      }
      this.unrecorded.delete(jobId);
    }
  }

  /**
   * Interrupts running jobs and waits until each has recorded its end. An end that still cannot be
   * recorded is left to the next start, which marks the job failed (recover()).
   */
  async close(): Promise<void> {
    this.closed = true;
    const jobs = [...this.running.values()];
    for (const j of jobs) j.abort.abort(new Error(SHUTDOWN_REASON));
    await Promise.all(jobs.map((j) => j.done));
    this.recording?.now();
    await this.recording?.stop();
    if (this.unrecorded.size)
      this.log.warn(
        { jobs: [...this.unrecorded.keys()] },
        'ingestion jobs whose end could not be recorded are marked failed at the next start',
      );
  }
}

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
