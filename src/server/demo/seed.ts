import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { iso } from '../ids.js';
import { insertAuditBatch } from '../governance/bulk.js';
import { DAY, HISTORY_DAYS, MINUTE } from './activity.js';
import { createRng } from './prng.js';
import { seedKeysAndUsage, seedRecentOverruns, seedUsageSince, type DemoCharges } from './seed-keys.js';
import { routingEntry } from '../models/routing.js';
import { priceOf } from '../gateway/pricing.js';
import { seedKeyBudget } from './seed-budgets.js';
import { seedIngestion } from './seed-ingest.js';
import { adminEvents } from './seed-audit.js';
import { seedJournal, seedRecentFailures } from './seed-journal.js';

const DEMO_SEEDED_KEY = 'demo_seeded';
const DEFAULT_DEMO_SEED = 20_251_121;

export interface SeedStats {
  seed: number;
  keys: number;
  revoked_keys: number;
  usage_rows: number;
  jobs: number;
  audit: number;
  journal: number;
  ms: number;
  /** epoch ms the history reaches: where bringing it up to date starts (absent in records before it was kept) */
  until?: number;
}

export interface CatchUpStats {
  from: number;
  until: number;
  usage_rows: number;
  jobs: number;
  journal: number;
  ms: number;
}

/** What an earlier seeding of this database recorded, or undefined when it was never seeded. */
export function demoSeedRecord(db: Db): SeedStats | undefined {
  const v = db.prepare('SELECT value FROM app_state WHERE key = ?').pluck().get(DEMO_SEEDED_KEY) as string | undefined;
  return v === undefined ? undefined : (JSON.parse(v) as SeedStats);
}

/** Each workload's model as routed now, and its price in the config: what the front door would charge. */
function demoCharges(db: Db, config: ServerConfig): DemoCharges {
  const known = new Map<string, ReturnType<DemoCharges>>();
  return (workload) => {
    let c = known.get(workload);
    if (!c) {
      const model_id = routingEntry(db, config, workload)?.effective_model_id ?? null;
      c = { model_id, price: priceOf(config, model_id) };
      known.set(workload, c);
    }
    return c;
  };
}

const writeRecord = (db: Db, stats: SeedStats, now: number) =>
  db
    .prepare(
      `INSERT INTO app_state (key, value, updated_at, updated_by) VALUES (?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    )
    .run(DEMO_SEEDED_KEY, JSON.stringify(stats), iso(now), 'demo-seeder');

/**
 * Seeds 30 days of demo history once per database, in one transaction: gateway keys with their
 * usage, ingestion jobs and connector last syncs, the audit trail and the agent journal, and in
 * its last hour quota rejections and failed agent steps whatever the hour. The same seed gives the
 * same data (times are relative to `now`). Returns undefined when already seeded.
 */
export function seedDemo(
  db: Db,
  config: ServerConfig,
  opts: { seed?: number; now?: number } = {},
): SeedStats | undefined {
  const seed = opts.seed ?? DEFAULT_DEMO_SEED;
  const now = opts.now ?? Date.now();
  const started = performance.now();
  return db
    .transaction((): SeedStats | undefined => {
      if (demoSeedRecord(db)) return undefined;
      const from = now - HISTORY_DAYS * DAY;
      // one stream per part, so changing one part leaves the others' data as it was
      const { keys, usageRows } = seedKeysAndUsage(db, createRng(seed), now, from, demoCharges(db, config));
      seedKeyBudget(db, config, keys, now);
      const ingestAudit = seedIngestion(db, config, createRng(seed + 1), from, now);
      const audit = [...ingestAudit, ...adminEvents(db, createRng(seed + 2), config, keys, from, now)].sort(
        (a, b) => a.at_ms! - b.at_ms!,
      );
      const auditRows = insertAuditBatch(db, audit);
      const journalRows = seedJournal(db, config, createRng(seed + 3), from, now);
      const recent = createRng(seed + 4);
      const recentUsage = seedRecentOverruns(db, recent, from, now, demoCharges(db, config));
      const recentJournal = seedRecentFailures(db, config, recent, from, now);
      const stats: SeedStats = {
        seed,
        keys: keys.length,
        revoked_keys: keys.filter((k) => k.revoked_ms !== null).length,
        usage_rows: usageRows + recentUsage,
        jobs: ingestAudit.length,
        audit: auditRows,
        journal: journalRows + recentJournal,
        ms: Math.round(performance.now() - started),
        until: now,
      };
      writeRecord(db, stats, now);
      return stats;
    })
    .immediate();
}

/**
 * Brings a seeded demo's history up to `now` (a demo started from the prebuilt database, or a demo
 * data directory served again later), in one transaction: the active demo keys' usage, ingestion
 * jobs with their audit entries, agent runs in proportion to the time passed, and in the last hour
 * the same quota rejections and failed steps as a fresh seed. Nothing is rewritten: the new rows
 * all come after the history's end, so the audit chain grows as it would have. Returns undefined
 * when the database was never seeded or is less than a minute behind.
 */
export function catchUpDemo(db: Db, config: ServerConfig, opts: { now?: number } = {}): CatchUpStats | undefined {
  const now = opts.now ?? Date.now();
  const started = performance.now();
  return db
    .transaction((): CatchUpStats | undefined => {
      const record = demoSeedRecord(db);
      if (!record) return undefined;
      const until =
        record.until ??
        Date.parse(db.prepare('SELECT updated_at FROM app_state WHERE key = ?').pluck().get(DEMO_SEEDED_KEY) as string);
      if (!(now - until >= MINUTE)) return undefined;
      const from = Math.max(until, now - HISTORY_DAYS * DAY);
      // a stream of its own per catch-up, so that two catch-ups of one history differ
      const rng = createRng(record.seed + 5 + Math.floor(from / MINUTE));
      const charges = demoCharges(db, config);
      const usageRows = seedUsageSince(db, rng.fork(), from, now, charges);
      const ingestAudit = seedIngestion(db, config, rng.fork(), from, now);
      insertAuditBatch(db, ingestAudit);
      const journalRows = seedJournal(db, config, rng.fork(), from, now);
      const recent = rng.fork();
      const stats: CatchUpStats = {
        from,
        until: now,
        usage_rows: usageRows + seedRecentOverruns(db, recent, from, now, charges),
        jobs: ingestAudit.length,
        journal: journalRows + seedRecentFailures(db, config, recent, from, now),
        ms: 0,
      };
      stats.ms = Math.round(performance.now() - started);
      writeRecord(db, { ...record, until: now }, now);
      return stats;
    })
    .immediate();
}

/**
 * Records that the history is complete up to `now`: what the traffic generator wrote while the
 * server ran is history a later catch-up must not write again.
 */
export function markDemoHistoryUntil(db: Db, now = Date.now()): void {
  const record = demoSeedRecord(db);
  if (record && (record.until ?? 0) < now) writeRecord(db, { ...record, until: now }, now);
}
