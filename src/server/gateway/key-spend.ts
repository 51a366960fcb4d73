import type { Db } from '../db/sqlite-driver.js';
import { amountOfNanos, type GatewayKey } from '../../contract/index.js';
import { epochMinute } from './metering.js';
import { dayStartMinute, monthStartMinute, nextMonthStartMinute } from './spend.js';
import { GRAIN_MINUTES } from './time-segments.js';

const statements = new WeakMap<Db, ReturnType<Db['prepare']>>();

/**
 * Keys as the API answers them: each with what it spent today and this month (UTC), in the
 * appliance's currency, from the day buckets the front door records in its transaction, so that
 * the figure is the one its budgets are checked against. One query for the keys given (a page),
 * not one a key. Null without pricing: there is no currency to say it in, and no budget can be set.
 */
export function withSpend<K extends GatewayKey>(db: Db, currency: string | null, keys: K[], nowMs = Date.now()): K[] {
  if (currency === null || !keys.length) return keys.map((k) => ({ ...k, spend: null }));
  const spent = spentNow(
    db,
    keys.map((k) => k.id),
    nowMs,
  );
  return keys.map((k) => {
    const s = spent.get(k.id);
    return { ...k, spend: { currency, today: amountOfNanos(s?.today ?? 0), this_month: amountOfNanos(s?.month ?? 0) } };
  });
}

/** What each of the keys spent today and this month (UTC), in nano-units; a key that spent nothing is not in it. */
export function spentNow(db: Db, ids: string[], nowMs: number): Map<string, { today: number; month: number }> {
  let stmt = statements.get(db);
  if (!stmt) {
    stmt = db.prepare(`SELECT key_id,
        COALESCE(SUM(CASE WHEN start_minute >= @day AND start_minute < @day_end THEN cost_nanos END), 0) AS today,
        COALESCE(SUM(cost_nanos), 0) AS month
      FROM usage_spend
      WHERE grain = 'day' AND key_id IN (SELECT value FROM json_each(@ids))
        AND start_minute >= @month AND start_minute < @next_month
      GROUP BY key_id`);
    statements.set(db, stmt);
  }
  const minute = epochMinute(nowMs);
  const day = dayStartMinute(minute);
  const rows = stmt.all({
    ids: JSON.stringify(ids),
    day,
    day_end: day + GRAIN_MINUTES.day,
    month: monthStartMinute(minute),
    next_month: nextMonthStartMinute(minute),
  }) as { key_id: string; today: number; month: number }[];
  return new Map(rows.map((r) => [r.key_id, { today: r.today, month: r.month }]));
}
