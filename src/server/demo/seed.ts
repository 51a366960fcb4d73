import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { iso } from '../ids.js';
import { insertAuditBatch } from '../governance/bulk.js';
import { DAY, HISTORY_DAYS } from './activity.js';
import { createRng } from './prng.js';
import { seedKeysAndUsage } from './seed-keys.js';
import { seedIngestion } from './seed-ingest.js';
import { adminEvents } from './seed-audit.js';
import { seedJournal } from './seed-journal.js';

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
}

/** What an earlier seeding of this database recorded, or undefined when it was never seeded. */
export function demoSeedRecord(db: Db): SeedStats | undefined {
  const v = db.prepare('SELECT value FROM app_state WHERE key = ?').pluck().get(DEMO_SEEDED_KEY) as string | undefined;
  return v === undefined ? undefined : (JSON.parse(v) as SeedStats);
}

/**
 * Seeds 30 days of demo history once per database, in one transaction: gateway keys with their
 * usage, ingestion jobs and connector last syncs, the audit trail and the agent journal. The same
 * seed gives the same data (times are relative to `now`). Returns undefined when already seeded.
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
      const { keys, usageRows } = seedKeysAndUsage(db, createRng(seed), now, from);
      const ingestAudit = seedIngestion(db, config, createRng(seed + 1), from, now);
      const audit = [...ingestAudit, ...adminEvents(db, createRng(seed + 2), config, keys, from, now)].sort(
        (a, b) => a.at_ms! - b.at_ms!,
      );
      const auditRows = insertAuditBatch(db, audit);
      const journalRows = seedJournal(db, config, createRng(seed + 3), from, now);
      const stats: SeedStats = {
        seed,
        keys: keys.length,
        revoked_keys: keys.filter((k) => k.revoked_ms !== null).length,
        usage_rows: usageRows,
        jobs: ingestAudit.length,
        audit: auditRows,
        journal: journalRows,
        ms: Math.round(performance.now() - started),
      };
      db.prepare('INSERT INTO app_state (key, value, updated_at, updated_by) VALUES (?, ?, ?, ?)').run(
        DEMO_SEEDED_KEY,
        JSON.stringify(stats),
        iso(now),
        'demo-seeder',
      );
      return stats;
    })
    .immediate();
}
