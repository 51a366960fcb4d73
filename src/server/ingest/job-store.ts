import * as z from 'zod';
import type { Connector, Job, JobsQuery, Page } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import type { ConnectorConfig, ServerConfig } from '../config.js';
import { conflict } from '../errors.js';
import { decodeCursor, encodeCursor } from '../http/paging.js';
import { iso, newId } from '../ids.js';

interface JobRow {
  job_id: string;
  connector_id: string;
  source_id: string;
  state: Job['state'];
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  items: number | null;
  error: string | null;
}

const JOB_COLUMNS = 'job_id, connector_id, source_id, state, created_at, started_at, finished_at, items, error';

export function getJob(db: Db, jobId: string): Job | undefined {
  return db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs WHERE job_id = ?`).get(jobId) as JobRow | undefined;
}

/** A position in the job list: the seq of the previous page's last job. */
const JobCursor = z.strictObject({ seq: z.number().int() });
const JOB_FILTERS = ['connector_id', 'source_id', 'state'] as const;

/**
 * Jobs newest first (seq is insertion order), keyset-paged by seq. An unknown connector or source
 * is an empty list, not a 404: jobs of a connector since removed from the config stay readable.
 */
export function listJobs(db: Db, q: JobsQuery): Page<Job> {
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: q.limit + 1 };
  for (const f of JOB_FILTERS) {
    if (q[f] === undefined) continue;
    where.push(`${f} = @${f}`);
    params[f] = q[f];
  }
  if (q.after !== undefined) {
    params.after = decodeCursor(q.after, JobCursor).seq;
    where.push('seq < @after');
  }
  const rows = db
    .prepare(
      `SELECT seq, ${JOB_COLUMNS} FROM jobs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT @limit`,
    )
    .all(params) as (JobRow & { seq: number })[];
  const has_more = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  return {
    data: page.map(({ seq: _seq, ...job }) => job),
    has_more,
    next_cursor: has_more ? encodeCursor({ seq: page[page.length - 1].seq }) : null,
  };
}

const isActiveJobConflict = (err: unknown) => {
  const e = err as { code?: unknown; message?: unknown };
  return (
    typeof e.code === 'string' &&
    e.code.startsWith('SQLITE_CONSTRAINT') &&
    String(e.message).includes('jobs.connector_id')
  );
};

/**
 * Inserts a queued job. The partial unique index jobs_one_active is the check: a second active
 * job for the same source fails the insert, even from another connection, and becomes a 409.
 */
export function insertQueuedJob(db: Db, connectorId: string, sourceId: string): string {
  const jobId = newId('job');
  try {
    db.prepare(
      "INSERT INTO jobs (job_id, connector_id, source_id, state, created_at) VALUES (?, ?, ?, 'queued', ?)",
    ).run(jobId, connectorId, sourceId, iso());
  } catch (err) {
    if (!isActiveJobConflict(err)) throw err;
    const active = db
      .prepare(
        "SELECT job_id, state FROM jobs WHERE connector_id = ? AND source_id = ? AND state IN ('queued','running')",
      )
      .get(connectorId, sourceId) as { job_id: string; state: string } | undefined;
    throw conflict(
      `ingestion of source ${sourceId} is already ${active?.state ?? 'active'}${active ? ` (${active.job_id})` : ''}`,
    );
  }
  return jobId;
}

/** queued -> running; false when the job is no longer queued. */
export function markRunning(db: Db, jobId: string): boolean {
  return (
    db
      .prepare("UPDATE jobs SET state = 'running', started_at = ? WHERE job_id = ? AND state = 'queued'")
      .run(iso(), jobId).changes === 1
  );
}

/**
 * The connector's health from the latest finished job of each of its configured sources:
 * none finished -> healthy (never synced); all failed -> error; some failed, or a success
 * that was only a partial read (limit reached, parts unreadable: it carries a note in `error`)
 * -> degraded; otherwise healthy. `syncing` and `disabled` are decided live when listing.
 */
export function outcomeState(db: Db, connector: ConnectorConfig): 'healthy' | 'degraded' | 'error' {
  const rows = db
    .prepare(
      `SELECT source_id, state, error, MAX(seq) FROM jobs
      WHERE connector_id = ? AND state IN ('succeeded','failed') GROUP BY source_id`,
    )
    .all(connector.id) as { source_id: string; state: string; error: string | null }[];
  const configured = new Set(connector.sources.map((s) => s.id));
  const latest = rows.filter((r) => configured.has(r.source_id));
  if (!latest.length) return 'healthy';
  const failed = latest.filter((r) => r.state === 'failed').length;
  if (failed === latest.length) return 'error';
  if (failed > 0 || latest.some((r) => r.error !== null)) return 'degraded';
  return 'healthy';
}

/**
 * Ends a queued or running job and records it as the connector's last sync, in one transaction.
 * Returns false when the job had already ended.
 */
export function finishJob(
  db: Db,
  config: ServerConfig,
  jobId: string,
  outcome: { state: 'succeeded' | 'failed'; items: number; error: string | null },
): boolean {
  return db.transaction(() => {
    const job = getJob(db, jobId);
    if (!job || (job.state !== 'queued' && job.state !== 'running')) return false;
    const at = iso();
    db.prepare('UPDATE jobs SET state = ?, finished_at = ?, items = ?, error = ? WHERE job_id = ?').run(
      outcome.state,
      at,
      outcome.items,
      outcome.error,
      jobId,
    );
    const connector = config.connectors.find((c) => c.id === job.connector_id);
    const state = connector ? outcomeState(db, connector) : outcome.state === 'failed' ? 'error' : 'healthy';
    db.prepare(
      `INSERT INTO connector_state (connector_id, state, last_sync_at, last_sync_status, last_sync_job_id, last_sync_items)
      VALUES (@id, @state, @at, @status, @job, @items)
      ON CONFLICT (connector_id) DO UPDATE SET state = excluded.state, last_sync_at = excluded.last_sync_at,
        last_sync_status = excluded.last_sync_status, last_sync_job_id = excluded.last_sync_job_id, last_sync_items = excluded.last_sync_items`,
    ).run({ id: job.connector_id, state, at, status: outcome.state, job: jobId, items: outcome.items });
    return true;
  })();
}

/** Jobs a previous process left queued or running end failed, with the reason given. */
export function failUnfinishedJobs(db: Db, config: ServerConfig, reason: string): number {
  const ids = db
    .prepare("SELECT job_id FROM jobs WHERE state IN ('queued','running') ORDER BY seq")
    .pluck()
    .all() as string[];
  for (const id of ids) finishJob(db, config, id, { state: 'failed', items: 0, error: reason });
  return ids.length;
}

/** Re-derives stored health after a restart, in case the configured sources changed. */
export function refreshConnectorStates(db: Db, config: ServerConfig): void {
  const update = db.prepare('UPDATE connector_state SET state = ? WHERE connector_id = ? AND state <> ?');
  db.transaction(() => {
    for (const c of config.connectors) {
      const state = outcomeState(db, c);
      update.run(state, c.id, state);
    }
  })();
}

interface StateRow {
  connector_id: string;
  state: 'healthy' | 'degraded' | 'error';
  last_sync_at: string | null;
  last_sync_status: 'succeeded' | 'failed' | null;
  last_sync_job_id: string | null;
  last_sync_items: number | null;
  /** the last sync job's `error` column (joined) */
  last_sync_error: string | null;
}

/** Every configured connector as the contract shows it, in config order. */
export function listConnectors(db: Db, config: ServerConfig): Connector[] {
  const stored = new Map(
    (
      db
        .prepare(
          `SELECT s.*, j.error AS last_sync_error FROM connector_state s
      LEFT JOIN jobs j ON j.job_id = s.last_sync_job_id`,
        )
        .all() as StateRow[]
    ).map((r) => [r.connector_id, r]),
  );
  // the partial index jobs_one_active answers this without a table scan
  const active = new Set(
    db.prepare("SELECT DISTINCT connector_id FROM jobs WHERE state IN ('queued','running')").pluck().all() as string[],
  );
  // the partial index jobs_connector_succeeded finds each newest success without reading the failures after it
  const lastSuccess = db.prepare(
    "SELECT finished_at AS at, job_id FROM jobs WHERE connector_id = ? AND state = 'succeeded' ORDER BY seq DESC LIMIT 1",
  );
  return config.connectors.map((c) => {
    const row = stored.get(c.id);
    const success = lastSuccess.get(c.id) as { at: string | null; job_id: string } | undefined;
    const last_sync =
      row?.last_sync_at && row.last_sync_status && row.last_sync_job_id
        ? {
            at: row.last_sync_at,
            status: row.last_sync_status,
            job_id: row.last_sync_job_id,
            items: row.last_sync_items ?? 0,
            // a succeeded job's `error` is only a partial-read note: the sync itself has no error
            error: row.last_sync_status === 'failed' ? row.last_sync_error : null,
          }
        : null;
    const state: Connector['state'] = !c.enabled
      ? 'disabled'
      : active.has(c.id)
        ? 'syncing'
        : (row?.state ?? 'healthy');
    return {
      id: c.id,
      name: c.name,
      kind: c.kind,
      state,
      last_sync,
      last_success: success?.at ? { at: success.at, job_id: success.job_id } : null,
      rbac_labels: c.rbac_labels,
      sources: c.sources.map((s) => ({ id: s.id, name: s.name })),
    };
  });
}
