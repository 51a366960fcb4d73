import type { Db } from '../db/sqlite-driver.js';
import { REJECTION_CAUSES } from '../../contract/index.js';
import { GRAIN_MINUTES, type Segment } from './time-segments.js';
import { REJECTION_COLUMNS } from './rejection-columns.js';

/**
 * Usage kept a second time by the hour and by the UTC day (usage_rollup, migration 15), beside the
 * minute rows: a day's or a week's usage reads a row per key and hour or day instead of one per key
 * and minute (a week of a busy gateway is millions of minutes). Its key is the time first, so that a
 * range of time is one stretch of the table, read without a lookup per row.
 */
/** every counted column of a usage row */
export const USAGE_COLUMNS = [
  'requests',
  'rejected',
  'input_tokens',
  'output_tokens',
  ...REJECTION_CAUSES.map((c) => REJECTION_COLUMNS[c]),
] as const;

const upserts = new WeakMap<Db, ReturnType<Db['prepare']>>();

/** Adds a minute's counts to its hour's and its day's rows (called with the minute row's own upsert). */
export function addToRollup(db: Db, keyId: string, minute: number, counts: Record<string, number>): void {
  let upsert = upserts.get(db);
  if (!upsert) {
    upsert = db.prepare(`INSERT INTO usage_rollup (grain, start_minute, key_id, ${USAGE_COLUMNS.join(', ')})
      VALUES (@grain, @start, @key_id, ${USAGE_COLUMNS.map((c) => `@${c}`).join(', ')})
      ON CONFLICT (grain, start_minute, key_id) DO UPDATE SET ${USAGE_COLUMNS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`);
    upserts.set(db, upsert);
  }
  for (const grain of ['hour', 'day'] as const) {
    const size = GRAIN_MINUTES[grain];
    upsert.run({ ...counts, grain, start: minute - (minute % size), key_id: keyId });
  }
}

/** Fills the hour and day rows from the minute rows (the upgrade, and a generated benchmark database). */
export function rebuildRollup(db: Db): void {
  const sums = USAGE_COLUMNS.map((c) => `SUM(${c})`).join(', ');
  db.exec(`DELETE FROM usage_rollup;
INSERT INTO usage_rollup (grain, start_minute, key_id, ${USAGE_COLUMNS.join(', ')})
  SELECT 'hour', minute - minute % 60, key_id, ${sums} FROM usage_minutes GROUP BY key_id, minute - minute % 60;
INSERT INTO usage_rollup (grain, start_minute, key_id, ${USAGE_COLUMNS.join(', ')})
  SELECT 'day', start_minute - start_minute % 1440, key_id, ${sums} FROM usage_rollup WHERE grain = 'hour'
  GROUP BY key_id, start_minute - start_minute % 1440;`);
}

/**
 * The rows of [from, to) as one source (`m`: the minute each row starts at), a subquery for
 * `FROM (…)`, with its parameters; `keyFilter` is added to each part.
 */
export function usageSource(parts: Segment[], keyFilter: string): { sql: string; params: Record<string, number> } {
  const params: Record<string, number> = {};
  const cols = USAGE_COLUMNS.join(', ');
  const sql = parts
    .map((p, i) => {
      params[`f${i}`] = p.from;
      params[`t${i}`] = p.to;
      return p.grain === 'minute'
        ? `SELECT key_id, minute AS m, ${cols} FROM usage_minutes WHERE minute >= @f${i} AND minute < @t${i} ${keyFilter}`
        : `SELECT key_id, start_minute AS m, ${cols} FROM usage_rollup WHERE grain = '${p.grain}' AND start_minute >= @f${i} AND start_minute < @t${i} ${keyFilter}`;
    })
    .join('\nUNION ALL\n');
  return { sql, params };
}
