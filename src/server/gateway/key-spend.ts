import type { Db } from '../db/sqlite-driver.js';
import { amountOfNanos, type GatewayKey } from '../../contract/index.js';
import { epochMinute } from './metering.js';
import { keySpendNow } from './spend.js';

/**
 * A key as the API answers it: with what it spent today and this month (UTC), in the appliance's
 * currency, from the day buckets the front door records in its transaction, so that the figure
 * is the one its budgets are checked against. Null without pricing: there is no currency to say
 * it in, and no budget can be set.
 */
export function withSpend(db: Db, currency: string | null, key: GatewayKey, nowMs = Date.now()): GatewayKey {
  if (currency === null) return { ...key, spend: null };
  const spent = keySpendNow(db, key.id, epochMinute(nowMs));
  return { ...key, spend: { currency, today: amountOfNanos(spent.today), this_month: amountOfNanos(spent.month) } };
}
