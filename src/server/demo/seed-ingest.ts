import { readdirSync } from 'node:fs';
import Database from '../db/sqlite-driver.js';
import type { Db } from '../db/sqlite-driver.js';
import type { ConnectorConfig, ServerConfig, SourceConfig } from '../config.js';
import { iso } from '../ids.js';
import { outcomeState } from '../ingest/job-store.js';
import { missingPathReason, quoteIdent, remoteSourceError, userTables } from '../ingest/sources.js';
import type { AuditSeed } from '../governance/bulk.js';
import { DAY, HISTORY_DAYS, HOUR, MINUTE, sampleBusyTime } from './activity.js';
import type { Rng } from './prng.js';
import { ACTORS, SCHEDULER, type Actor } from './actors.js';

/** Minutes between scheduled syncs, per source; a fast-changing database is polled often. */
const SCHEDULE_MINUTES: Record<string, number> = {
  src_ops_sqlite: 10,
  src_crm_files: 15,
  src_office_docs: 15,
  src_hr_policies: 15,
  src_cloud_accounts: 15,
  src_eng_all: 30,
  src_ledger_files: 30,
  src_eng_runbooks: 60,
};
const DEFAULT_SCHEDULE_MINUTES = 15;
/** people's own runs over the whole history; as many for its share of a shorter window */
const MANUAL_INGESTS = 600;

interface SeedJob {
  job_id: string;
  connector_id: string;
  source_id: string;
  created_ms: number;
  started_ms: number;
  finished_ms: number;
  state: 'succeeded' | 'failed';
  items: number;
  error: string | null;
}

/**
 * What a real ingestion of the source would count now (files, or rows of the tables it counts).
 * Synchronous: it runs inside the seeding transaction, where the runner's async readers cannot.
 */
function countItems(source: SourceConfig): number {
  try {
    if (source.type === 'directory' && source.path) {
      return (readdirSync(source.path, { recursive: true, withFileTypes: true }) as { isFile(): boolean }[]).filter(
        (e) => e.isFile(),
      ).length;
    }
    if (source.type === 'sqlite' && source.path) {
      const db = new Database(source.path, { readonly: true, fileMustExist: true });
      try {
        return userTables(db).reduce(
          (n, t) =>
            n +
            (db
              .prepare(`SELECT count(*) FROM ${quoteIdent(t)}`)
              .pluck()
              .get() as number),
          0,
        );
      } finally {
        db.close();
      }
    }
  } catch {
    // a missing source is seeded as failing below
  }
  return -1;
}

/**
 * Ingestion history: scheduled syncs of every source by the on-host scheduler plus manual runs by
 * people, each a finished job and its `connector.ingest` audit entry. One outage (the engineering
 * share unmounted for 90 minutes) shows failed local jobs. Returns the audit entries; writes jobs
 * and each connector's last sync.
 */
export function seedIngestion(db: Db, config: ServerConfig, rng: Rng, from: number, to: number): AuditSeed[] {
  const sources = config.connectors
    .filter((c) => c.enabled)
    .flatMap((c) => c.sources.map((s) => ({ c, s, items: countItems(s) })));
  if (!sources.length) return [];
  const outage = { from: to - 11 * 24 * HOUR + 9 * HOUR, to: to - 11 * 24 * HOUR + 10.5 * HOUR };
  const jobs: (SeedJob & { actor: Actor })[] = [];
  const times = rng.fork();

  const makeJob = (c: ConnectorConfig, s: SourceConfig, items: number, created: number, actor: Actor) => {
    const started = created + rng.int(40, 700);
    let state: SeedJob['state'] = 'succeeded';
    let error: string | null = null;
    let n = Math.max(0, items);
    let took = s.type === 'sqlite' ? rng.int(25, 180) : rng.int(15, 40) + n * rng.int(1, 6);
    // the same words the ingestion runner uses, so seeded history reads like real history
    if (s.type === 'remote') {
      [state, error, n, took] = ['failed', remoteSourceError(c, s), 0, rng.int(2, 25)];
    } else if (items < 0) {
      [state, error, n] = ['failed', missingPathReason(s.path!), 0];
    } else if (c.id === 'conn_eng_share' && created >= outage.from && created < outage.to) {
      [state, error, n, took] = ['failed', missingPathReason(s.path!), 0, 1 + (took % 6)];
    }
    jobs.push({
      job_id: rng.id('job'),
      connector_id: c.id,
      source_id: s.id,
      created_ms: created,
      started_ms: started,
      finished_ms: started + took,
      state,
      items: n,
      error,
      actor,
    });
  };

  for (const { c, s, items } of sources) {
    const every = (SCHEDULE_MINUTES[s.id] ?? DEFAULT_SCHEDULE_MINUTES) * MINUTE;
    const offset = rng.int(0, every / MINUTE - 1) * MINUTE;
    for (let t = from + offset; t < to - 2 * MINUTE; t += every)
      makeJob(c, s, items, t + rng.int(0, 15_000), SCHEDULER);
  }
  const people = ACTORS.filter((a) => a.human && a.role !== 'auditor');
  const manual = Math.round((MANUAL_INGESTS * (to - from)) / (HISTORY_DAYS * DAY));
  for (let i = 0; i < manual && to - 2 * MINUTE > from; i++) {
    const { c, s, items } = rng.pick(sources);
    makeJob(c, s, items, sampleBusyTime(times, from, to - 2 * MINUTE), rng.pick(people));
  }
  jobs.sort((a, b) => a.created_ms - b.created_ms);

  const insert =
    db.prepare(`INSERT INTO jobs (job_id, connector_id, source_id, state, created_at, started_at, finished_at, items, error)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const audit: AuditSeed[] = [];
  for (const j of jobs) {
    insert.run(
      j.job_id,
      j.connector_id,
      j.source_id,
      j.state,
      iso(j.created_ms),
      iso(j.started_ms),
      iso(j.finished_ms),
      j.items,
      j.error,
    );
    audit.push({
      id: rng.id('aud'),
      at_ms: j.created_ms,
      actor: { subject: j.actor.subject, role: j.actor.role },
      action: 'connector.ingest',
      target: {
        type: 'connector',
        id: j.connector_id,
        name: config.connectors.find((c) => c.id === j.connector_id)?.name ?? null,
      },
      outcome: 'success',
      status: 202,
      request_id: rng.id('req'),
      source_ip: j.actor.ip,
      details: { source_id: j.source_id, job_id: j.job_id },
    });
  }
  writeLastSyncs(db, config, jobs);
  return audit;
}

function writeLastSyncs(db: Db, config: ServerConfig, jobs: SeedJob[]): void {
  const latest = new Map<string, SeedJob>();
  for (const j of jobs) latest.set(j.connector_id, j);
  const upsert =
    db.prepare(`INSERT INTO connector_state (connector_id, state, last_sync_at, last_sync_status, last_sync_job_id, last_sync_items)
    VALUES (@id, @state, @at, @status, @job, @items)
    ON CONFLICT (connector_id) DO UPDATE SET state = excluded.state, last_sync_at = excluded.last_sync_at,
      last_sync_status = excluded.last_sync_status, last_sync_job_id = excluded.last_sync_job_id, last_sync_items = excluded.last_sync_items`);
  for (const c of config.connectors) {
    const j = latest.get(c.id);
    if (!j) continue;
    upsert.run({
      id: c.id,
      state: outcomeState(db, c),
      at: iso(j.finished_ms),
      status: j.state,
      job: j.job_id,
      items: j.items,
    });
  }
}

/** Ingestion attempts that failed: an unknown connector, or a source already syncing. */
export function failedIngests(rng: Rng, count: number, from: number, to: number, config: ServerConfig): AuditSeed[] {
  const out: AuditSeed[] = [];
  const times = rng.fork();
  const people = ACTORS.filter((a) => a.human && a.role !== 'auditor');
  const local = config.connectors.flatMap((c) => c.sources.filter((s) => s.type !== 'remote').map((s) => ({ c, s })));
  for (let i = 0; i < count; i++) {
    const at = sampleBusyTime(times, from, to);
    const actor = rng.pick(people);
    const conflictCase = rng.chance(0.7) && local.length > 0;
    const { c, s } = conflictCase ? rng.pick(local) : { c: undefined, s: undefined };
    const connectorId = c?.id ?? rng.pick(['conn_sharepoint', 'conn_hubspot', 'conn_payroll']);
    out.push({
      id: rng.id('aud'),
      at_ms: at,
      actor: { subject: actor.subject, role: actor.role },
      action: 'connector.ingest',
      target: { type: 'connector', id: connectorId, name: c?.name ?? null },
      outcome: 'failed',
      status: conflictCase ? 409 : 404,
      request_id: rng.id('req'),
      source_ip: actor.ip,
      details: conflictCase
        ? { code: 'SVC-ADMIN-409', detail: `ingestion of source ${s!.id} is already running (${rng.id('job')})` }
        : { code: 'SVC-ADMIN-404', detail: `no connector ${connectorId} is configured` },
    });
  }
  return out;
}
