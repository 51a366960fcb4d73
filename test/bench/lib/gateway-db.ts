import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { DB_FILE, openDatabase } from '../../../src/server/db/open.js';
import { migrations } from '../../../src/server/db/migrations.js';
import Database from '../../../src/server/db/sqlite-driver.js';
import { rebuildRollup } from '../../../src/server/gateway/usage-rollup.js';
import { createRng } from '../../../src/server/demo/prng.js';
import { costNanos, type ModelPrice } from '../../../src/contract/index.js';
import { nowMs } from './stats.js';

/**
 * A gateway at scale for issue 41 §6: `keys` gateway keys (1,000,000 by default: LiteLLM's page broke
 * at 380,000) and `usageMinutes` rows of per-minute usage (10,000,000) over the HISTORY_DAYS before
 * END_MS, with their spend at minute, hour and day grain as the front door writes it. Generated once
 * and cached under test/bench/out/ keyed by GENERATOR_VERSION and the schema.
 *
 * Deterministic (seeded PRNG, fixed end): keys are created over two years, one in twenty revoked;
 * one key in BUSY_EVERY is busy (about 2,000 of a million), spread through the list, each calling one
 * workload's model on a share of the minutes (Zipf-like: a few keys do most of the calls).
 */
export const GENERATOR_VERSION = 1;
export const END_MS = Date.UTC(2026, 10, 28, 0, 0);
export const HISTORY_DAYS = 30;
const BUSY_EVERY = 500;
const MINUTE = 60_000;

/** The models the busy keys call and their prices, as a bench's `pricing` config states them. */
export const SCALE_PRICES: Record<string, ModelPrice> = {
  'llama-3.1-8b': { input_per_million: 0.2, output_per_million: 0.6 },
  'mistral-7b': { input_per_million: 0.25, output_per_million: 0.75 },
  'qwen2.5-14b': { input_per_million: 0.5, output_per_million: 1.5 },
  'local-embed': { input_per_million: 0, output_per_million: 0 },
};
const MODELS = Object.keys(SCALE_PRICES);
const WORKLOADS = ['chat', 'summarize', 'extract', 'embed', 'code-assist', 'classify'];

export interface GatewayDb {
  /** the data directory holding appliance-admin.db (use a copy when writing: copyGatewayDb) */
  dir: string;
  keys: number;
  usageMinutes: number;
  fromMs: number;
  toMs: number;
  /** ids of some busy keys (with usage), busiest first */
  busyKeys: string[];
}

const schemaHash = () => createHash('sha1').update(JSON.stringify(migrations)).digest('hex').slice(0, 8);
const keyId = (i: number) => `key_${i.toString(36).padStart(8, '0')}`;

/** The cached database, generating it first when missing (about 1 to 3 minutes for the defaults). */
export function ensureGatewayDb(
  outDir: string,
  log: (m: string) => void,
  size: { keys?: number; usageMinutes?: number } = {},
): GatewayDb {
  const keys = size.keys ?? 1_000_000;
  const usageMinutes = size.usageMinutes ?? 10_000_000;
  const dir = join(outDir, `gateway-${keys}-${usageMinutes}-g${GENERATOR_VERSION}-${schemaHash()}`);
  if (existsSync(join(dir, 'meta.json'))) return { dir, ...JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) };
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  const upgraded = upgradeOlder(outDir, `gateway-${keys}-${usageMinutes}-g${GENERATOR_VERSION}-`, tmp, dir, log);
  if (upgraded) return upgraded;
  log(
    `generating ${keys.toLocaleString('en-US')} keys and ${usageMinutes.toLocaleString('en-US')} usage minutes (once; cached)`,
  );
  const started = nowMs();
  const db = openDatabase(tmp);
  // only for generating: a large page cache and no fsync (the file is thrown away if this fails)
  db.pragma('cache_size = -262144');
  db.pragma('synchronous = OFF');
  const rng = createRng(20261128);
  const fromMs = END_MS - HISTORY_DAYS * 86_400_000;

  const insertKey = db.prepare(`INSERT INTO gateway_keys (id, name, status, prefix, secret_hash, created_at, created_by,
    revoked_at, last_used_at, requests_per_minute, tokens_per_minute, tokens_per_day, quota_changed_at, expires_at)
    VALUES (?, ?, ?, ?, ?, ?, 'svc-terraform', ?, ?, ?, NULL, ?, ?, ?)`);
  const twoYears = 730 * 86_400_000;
  db.transaction(() => {
    for (let i = 0; i < keys; i++) {
      // created in id order, oldest first, so the newest keys are the last ids
      const created = new Date(END_MS - twoYears + Math.floor((i / keys) * twoYears)).toISOString();
      const revoked = rng.chance(0.05);
      const busy = i % BUSY_EVERY === 0;
      insertKey.run(
        keyId(i),
        `app-${String(i).padStart(7, '0')}`,
        revoked && !busy ? 'revoked' : 'active',
        `agk_${i.toString(36).padStart(8, '0')}`,
        createHash('sha256').update(`scale-${i}`).digest('hex'),
        created,
        revoked && !busy ? created : null,
        busy ? new Date(END_MS - MINUTE).toISOString() : null,
        rng.pick([60, 120, 600, null]),
        rng.pick([1_000_000, 10_000_000, null]),
        created,
        rng.chance(0.1) ? new Date(END_MS + rng.int(1, 365) * 86_400_000).toISOString() : null,
      );
    }
  })();
  log(`  keys in ${((nowMs() - started) / 1000).toFixed(0)} s`);

  const busyIds: number[] = [];
  for (let i = 0; i < keys; i += BUSY_EVERY) busyIds.push(i);
  // Zipf-like shares of the minutes, capped at every minute of the history
  const historyMinutes = HISTORY_DAYS * 1440;
  const weights = busyIds.map((_, r) => 1 / (r + 1) ** 0.6);
  const total = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.min(historyMinutes, Math.round((w / total) * usageMinutes)));
  // spread what the cap cut off over the others, so that the total is what was asked
  let missing = usageMinutes - counts.reduce((a, b) => a + b, 0);
  for (let r = counts.length - 1; missing > 0 && r >= 0; r--) {
    const add = Math.min(missing, historyMinutes - counts[r]);
    counts[r] += add;
    missing -= add;
  }

  const usage = db.prepare(`INSERT INTO usage_minutes (key_id, minute, requests, rejected, input_tokens, output_tokens,
    rejected_rpm) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const spend = db.prepare(`INSERT INTO usage_spend (grain, key_id, start_minute, model_id, workload, requests,
    input_tokens, output_tokens, cost_nanos) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const firstMinute = fromMs / MINUTE;
  const busyOrder = busyIds.map((id, r) => ({ id, r })).sort((a, b) => (keyId(a.id) < keyId(b.id) ? -1 : 1));
  for (const { id, r } of busyOrder) {
    const k = keyId(id);
    const model = MODELS[r % MODELS.length];
    const workload = model === 'local-embed' ? 'embed' : WORKLOADS[r % (WORKLOADS.length - 1)];
    const price = SCALE_PRICES[model];
    // which minutes: every step-th, from a random offset, so the rows stay sorted and spread over the days
    const n = counts[r];
    const step = historyMinutes / n;
    const offset = rng.next() * step;
    const hours = new Map<number, number[]>();
    const days = new Map<number, number[]>();
    db.transaction(() => {
      for (let j = 0; j < n; j++) {
        const minute = firstMinute + Math.floor(offset + j * step);
        const requests = rng.int(1, 20);
        const input = requests * rng.int(50, 800);
        const output = requests * rng.int(20, 400);
        const rejected = rng.chance(0.02) ? rng.int(1, 5) : 0;
        const cost = costNanos(price, { input_tokens: input, output_tokens: output });
        usage.run(k, minute, requests, rejected, input, output, rejected);
        spend.run('minute', k, minute, model, workload, requests, input, output, cost);
        for (const [map, start] of [
          [hours, minute - (minute % 60)],
          [days, minute - (minute % 1440)],
        ] as const) {
          const t = map.get(start) ?? [0, 0, 0, 0];
          t[0] += requests;
          t[1] += input;
          t[2] += output;
          t[3] += cost;
          map.set(start, t);
        }
      }
      for (const [grain, map] of [
        ['hour', hours],
        ['day', days],
      ] as const)
        for (const [start, t] of map) spend.run(grain, k, start, model, workload, ...t);
    })();
  }
  // the hours and days the front door keeps beside the minutes (written here in bulk, as the upgrade does)
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'usage_rollup'").get()) rebuildRollup(db);
  log(`  usage in ${((nowMs() - started) / 1000).toFixed(0)} s; analyzing`);
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const busiest = busyIds.map((id, r) => ({ id, n: counts[r] })).sort((a, b) => b.n - a.n);
  const meta = {
    keys,
    usageMinutes,
    fromMs,
    toMs: END_MS,
    busyKeys: busiest.slice(0, 50).map((b) => keyId(b.id)),
    seconds: Math.round((nowMs() - started) / 1000),
  };
  writeFileSync(join(tmp, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  log(`generated in ${meta.seconds} s`);
  return { dir, ...meta };
}

/**
 * The same generation cached under an older schema, copied and upgraded as an appliance upgrades
 * (its migrations run on the data as it is), then analyzed: seconds where generating takes minutes.
 * Null when there is none.
 */
function upgradeOlder(outDir: string, prefix: string, tmp: string, dir: string, log: (m: string) => void) {
  const candidates = readdirSync(outDir)
    .filter((d) => d.startsWith(prefix) && !d.endsWith('.tmp') && existsSync(join(outDir, d, 'meta.json')))
    .map((d) => join(outDir, d));
  for (const older of candidates) {
    // checked on a copy: even a read-only open of a database in WAL mode leaves files beside it
    mkdirSync(tmp, { recursive: true });
    copyFileSync(join(older, DB_FILE), join(tmp, DB_FILE));
    const probe = new Database(join(tmp, DB_FILE));
    const applied = new Set(probe.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
    probe.close();
    // an older schema: every migration it has is one of ours, and some of ours are missing
    if (![...applied].every((v) => migrations.some((m) => m.version === v)) || applied.size >= migrations.length) {
      rmSync(tmp, { recursive: true, force: true });
      continue;
    }
    log(`upgrading a copy of ${older} to this schema (once; cached)`);
    const started = nowMs();
    const db = openDatabase(tmp);
    db.exec('ANALYZE');
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    copyFileSync(join(older, 'meta.json'), join(tmp, 'meta.json'));
    renameSync(tmp, dir);
    log(`upgraded in ${((nowMs() - started) / 1000).toFixed(0)} s`);
    return { dir, ...(JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Omit<GatewayDb, 'dir'>) };
  }
  return null;
}

/** A private copy of the cached database in a fresh data directory, for a run that writes (the front door). */
export function copyGatewayDb(src: GatewayDb, outDir: string, label: string): string {
  const dir = join(outDir, `work-${label}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(src.dir, DB_FILE), join(dir, DB_FILE));
  return dir;
}
