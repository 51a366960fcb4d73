import type { Db } from '../db/sqlite-driver.js';
import { GRAIN_MINUTES } from './time-segments.js';

/** One call's (or a seeded batch's) part of a key's spend: what it called and what it cost. */
export interface SpendCounts {
  /** the model that served the workload; null when none did */
  model_id: string | null;
  workload: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** nano-units of the currency; null: the model has no price (counted as unpriced, not as free) */
  cost_nanos: number | null;
}

const upserts = new WeakMap<Db, ReturnType<Db['prepare']>>();

/** The UTC day's first minute, and the UTC month's, of an epoch minute. */
export const dayStartMinute = (minute: number): number => minute - (minute % GRAIN_MINUTES.day);
export function monthStartMinute(minute: number): number {
  const d = new Date(minute * 60_000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 60_000;
}
export function nextMonthStartMinute(minute: number): number {
  const d = new Date(minute * 60_000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 60_000;
}

/** One bucket's part of usage_spend at one grain, as stored (cost in nano-units, unpriced calls apart). */
export interface SpendRow {
  model_id: string;
  workload: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost_nanos: number;
  unpriced_requests: number;
}

/**
 * Adds to one bucket of one grain. recordSpend adds a call to its three; a writer of many calls
 * (the demo's seeding) may sum its hours and days itself and add each once.
 */
export function addSpendAt(
  db: Db,
  grain: 'minute' | 'hour' | 'day',
  keyId: string,
  startMinute: number,
  r: SpendRow,
): void {
  let upsert = upserts.get(db);
  if (!upsert) {
    upsert = db.prepare(`INSERT INTO usage_spend (grain, key_id, start_minute, model_id, workload, requests,
      input_tokens, output_tokens, cost_nanos, unpriced_requests)
    VALUES (@grain, @key_id, @start_minute, @model_id, @workload, @requests, @input_tokens, @output_tokens, @cost_nanos, @unpriced_requests)
    ON CONFLICT (grain, start_minute, key_id, model_id, workload) DO UPDATE SET requests = requests + excluded.requests,
      input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
      cost_nanos = cost_nanos + excluded.cost_nanos, unpriced_requests = unpriced_requests + excluded.unpriced_requests`);
    upserts.set(db, upsert);
  }
  upsert.run({ ...r, grain, key_id: keyId, start_minute: startMinute });
}

/** A call's (or a batch's) counts as a stored row: a null cost is unpriced, never zero. */
export const spendRowOf = (s: SpendCounts): SpendRow => ({
  model_id: s.model_id ?? '',
  workload: s.workload,
  requests: s.requests,
  input_tokens: s.input_tokens,
  output_tokens: s.output_tokens,
  cost_nanos: s.cost_nanos ?? 0,
  unpriced_requests: s.cost_nanos === null ? s.requests : 0,
});

/**
 * Adds a call's spend to its minute, hour and day (migration 14's usage_spend), in the caller's
 * transaction: the three grains always agree.
 */
export function recordSpend(db: Db, keyId: string, minute: number, s: SpendCounts): void {
  const m = Math.floor(minute);
  const row = spendRowOf(s);
  addSpendAt(db, 'minute', keyId, m, row);
  addSpendAt(db, 'hour', keyId, m - (m % GRAIN_MINUTES.hour), row);
  addSpendAt(db, 'day', keyId, dayStartMinute(m), row);
}

const spentStatements = new WeakMap<Db, ReturnType<Db['prepare']>>();

/** A key's cost in nano-units over the day buckets in [fromMinute, toMinute). */
export function spentNanos(db: Db, keyId: string, fromMinute: number, toMinute: number): number {
  let stmt = spentStatements.get(db);
  if (!stmt) {
    stmt = db
      .prepare(
        `SELECT COALESCE(SUM(cost_nanos), 0) FROM usage_spend
        WHERE grain = 'day' AND key_id = ? AND start_minute >= ? AND start_minute < ?`,
      )
      .pluck();
    spentStatements.set(db, stmt);
  }
  return (stmt as unknown as { get(...a: unknown[]): number }).get(keyId, fromMinute, toMinute);
}
