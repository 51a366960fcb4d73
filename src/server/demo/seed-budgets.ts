import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { setGatewayKeyBudget } from '../gateway/keys.js';
import { currencyOf } from '../gateway/pricing.js';
import { spentNow } from '../gateway/key-spend.js';
import type { SeededKey } from './seed-keys.js';

const DAY = 86_400_000;
/** The demo key that has a money budget, and how much of it its spend today takes at seed time. */
const BUDGETED_KEY = 'finance-analyst-prod';
const SHARE_AT_SEED = 0.85;

/**
 * Gives one demo key a day budget its spend today has already taken 85% of, so that the demo shows a
 * key near its budget (the overview's WARN, the keys screen's Spend) and, as its traffic goes on,
 * refused by it. On an appliance without pricing there is no currency to set a budget in: the
 * trail then tells of an administrator's attempt, refused (409), as the appliance answers it.
 */
export function seedKeyBudget(db: Db, config: ServerConfig, keys: SeededKey[], now: number): void {
  const seeded = keys.find((k) => k.name === BUDGETED_KEY && k.revoked_ms === null);
  if (!seeded) return;
  const at_ms = now - 21 * DAY + 4 * 3600_000;
  if (currencyOf(config) === null) {
    seeded.budget = { at_ms, to: null };
    return;
  }
  const today = (spentNow(db, [seeded.id], now).get(seeded.id)?.today ?? 0) / 1e9;
  // to the cent: the demo's keys spend cents a day, and a whole unit would put the key far from its budget
  const per_day = Math.max(0.01, Math.ceil((today / SHARE_AT_SEED) * 100) / 100);
  const { key } = setGatewayKeyBudget(db, seeded.id, { per_day, per_month: null });
  // set by an administrator three weeks ago (the audit trail tells of it)
  seeded.budget = { at_ms, to: key.budget };
}
