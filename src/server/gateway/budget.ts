import type { Db } from '../db/sqlite-driver.js';
import { amountOfNanos, type ModelPrice } from '../../contract/index.js';
import { dayStartMinute, monthStartMinute, nextMonthStartMinute, spentNanos } from './spend.js';
import { GRAIN_MINUTES } from './time-segments.js';

const MINUTE_MS = 60_000;

/** A key's money budgets in nano-units (null: none), as migration 14 keeps them. */
export interface KeyBudget {
  per_day_nanos: number | null;
  per_month_nanos: number | null;
  warn_percent: number;
}

const budgetStatements = new WeakMap<Db, ReturnType<Db['prepare']>>();

/** Read in the front door's transaction, so that a budget changed a moment ago is the one applied. */
export function keyBudgetOf(db: Db, keyId: string): KeyBudget | undefined {
  let stmt = budgetStatements.get(db);
  if (!stmt) {
    stmt = db.prepare(`SELECT budget_per_day_nanos AS per_day_nanos, budget_per_month_nanos AS per_month_nanos,
      budget_warn_percent AS warn_percent FROM gateway_keys WHERE id = ?`);
    budgetStatements.set(db, stmt);
  }
  return stmt.get(keyId) as KeyBudget | undefined;
}

export const hasBudget = (b: KeyBudget | undefined): b is KeyBudget =>
  b !== undefined && (b.per_day_nanos !== null || b.per_month_nanos !== null);

export type BudgetVerdict =
  | { ok: true }
  /** retryAfterSeconds is null when waiting cannot help (no price, or one call costs more than the budget) */
  | { ok: false; retryAfterSeconds: number | null; detail: string };

/**
 * Whether a call costing `costNanos` (null: its model has no price) fits the key's hard budgets,
 * given what the key spent in the current UTC day and month. Run inside the front door's IMMEDIATE
 * transaction with the recording of the call, so that concurrent calls cannot together pass a budget.
 * A key with a budget cannot call an unpriced model: its cost could not be counted against it.
 */
export function checkBudget(
  db: Db,
  keyId: string,
  budget: KeyBudget,
  call: { model_id: string | null; price: ModelPrice | null; costNanos: number | null },
  currency: string | null,
  nowMs: number,
): BudgetVerdict {
  if (call.costNanos === null)
    return {
      ok: false,
      retryAfterSeconds: null,
      detail: `${call.model_id === null ? 'no model serves this workload, so the call' : `model ${call.model_id} has no price in the appliance's pricing, so a call`} cannot be counted against this key's budget`,
    };
  const minute = Math.floor(nowMs / MINUTE_MS);
  const money = (nanos: number) => `${amountOfNanos(nanos)} ${currency ?? ''}`.trim();
  const windows = [
    {
      limit: budget.per_day_nanos,
      from: dayStartMinute(minute),
      to: dayStartMinute(minute) + GRAIN_MINUTES.day,
      name: 'day',
    },
    { limit: budget.per_month_nanos, from: monthStartMinute(minute), to: nextMonthStartMinute(minute), name: 'month' },
  ];
  for (const w of windows) {
    if (w.limit === null) continue;
    const spent = spentNanos(db, keyId, w.from, w.to);
    if (spent + call.costNanos > w.limit) {
      const alone = call.costNanos > w.limit;
      return {
        ok: false,
        retryAfterSeconds: alone ? null : Math.max(1, Math.ceil((w.to * MINUTE_MS - nowMs) / 1000)),
        detail: alone
          ? `this call alone costs ${money(call.costNanos)}, more than the budget of ${money(w.limit)} per ${w.name}`
          : `budget of ${money(w.limit)} per ${w.name} reached (${money(spent)} spent)`,
      };
    }
  }
  return { ok: true };
}
