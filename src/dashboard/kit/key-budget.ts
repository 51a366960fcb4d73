/**
 * A gateway key's money budgets as the keys screen, the overview and the CLI say them: what it
 * spent against which budget, and whether it passed the share its budget warns at. The appliance
 * refuses a call past a budget (cause `budget`); the warning share is the dashboard's alone.
 */
import type { GatewayKey } from '../../contract/index.js';
import { DEFAULT_BUDGET_WARN_PERCENT, MAX_BUDGET, MONEY_DECIMALS } from '../../contract/money.js';

type BudgetedKey = Pick<GatewayKey, 'budget' | 'spend'>;
type BudgetWindow = 'day' | 'month';

/** An amount of money in few characters: cents from 0.01 up, more places below (a cheap model's calls). */
function moneyText(amount: number): string {
  if (!Number.isFinite(amount)) return '?';
  if (amount === 0) return '0';
  if (Math.abs(amount) >= 0.01) return amount.toFixed(2);
  return String(+amount.toPrecision(2));
}
/** In a cell: less than a cent says so, in the room of a cent (the cursor line says it exactly). */
const cellMoney = (amount: number) => (amount > 0 && amount < 0.01 ? '<0.01' : moneyText(amount));
/** A budget as it was set: whole units without decimals (5, not 5.00). */
const limitMoney = (amount: number) => (Number.isInteger(amount) ? String(amount) : moneyText(amount));

export interface BudgetUse {
  window: BudgetWindow;
  spent: number;
  budget: number;
  /** spent / budget: 1 is the whole budget (a budget of 0 is used up at once) */
  share: number;
}

/** Each budget the key has, with what it spent in its window (none: no budget, or no pricing). */
function budgetUses(k: BudgetedKey): BudgetUse[] {
  const b = k.budget;
  const s = k.spend;
  if (!b || !s) return [];
  const uses: BudgetUse[] = [];
  const share = (spent: number, budget: number) => (budget > 0 ? spent / budget : 1);
  if (typeof b.per_day === 'number')
    uses.push({ window: 'day', spent: s.today, budget: b.per_day, share: share(s.today, b.per_day) });
  if (typeof b.per_month === 'number')
    uses.push({ window: 'month', spent: s.this_month, budget: b.per_month, share: share(s.this_month, b.per_month) });
  return uses;
}

/** The budget the key has used the most of, or null. */
export function fullestBudget(k: BudgetedKey): BudgetUse | null {
  return budgetUses(k).reduce<BudgetUse | null>((a, u) => (!a || u.share > a.share ? u : a), null);
}

export const warnPercentOf = (k: BudgetedKey): number =>
  typeof k.budget?.warn_percent === 'number' ? k.budget.warn_percent : DEFAULT_BUDGET_WARN_PERCENT;

/** Whether the key passed its warning share of a budget (or used it up). */
export function isNearBudget(k: BudgetedKey): boolean {
  const u = fullestBudget(k);
  return u !== null && u.share * 100 >= warnPercentOf(k);
}

const percent = (share: number) => `${Math.floor(share * 100)}%`;

/**
 * The Spend cell: today's spend against the day budget ("4.10/5 EUR 82%"), else this month's
 * against the month budget ("41.00/100 EUR/mo 41%"), else what it spent today ("0.42 EUR");
 * "–" when the appliance has no pricing.
 */
export function spendCell(k: BudgetedKey): string {
  const s = k.spend;
  if (!s) return '–';
  const u = budgetUses(k);
  const shown = u.find((x) => x.window === 'day') ?? u[0];
  if (!shown) return `${cellMoney(s.today)} ${s.currency}`;
  const per = shown.window === 'month' ? '/mo' : '';
  return `${cellMoney(shown.spent)}/${limitMoney(shown.budget)} ${s.currency}${per} ${percent(shown.share)}`;
}

/**
 * Sorts keys by the share of their fullest budget, above every key without one (those by what they
 * spent today): sorted descending (s to Spend, then S), the keys nearest their budgets come first.
 */
export function spendSortKey(k: BudgetedKey): number | null {
  if (!k.spend) return null;
  const u = fullestBudget(k);
  return u ? 1e12 + u.share : k.spend.today;
}

/** The budgets in words: "budget 5 EUR a day, 100 EUR a month (warns at 80%)", or null without one. */
export function budgetText(k: BudgetedKey, currency = k.spend?.currency ?? ''): string | null {
  const b = k.budget;
  if (!b || (b.per_day === null && b.per_month === null)) return null;
  const parts = [
    ...(typeof b.per_day === 'number' ? [`${limitMoney(b.per_day)} ${currency} a day`.replace('  ', ' ')] : []),
    ...(typeof b.per_month === 'number' ? [`${limitMoney(b.per_month)} ${currency} a month`.replace('  ', ' ')] : []),
  ];
  return `budget ${parts.join(', ')} (warns at ${warnPercentOf(k)}%)`;
}

/** What it spent, in words: "spent 4.10 EUR today, 41.00 EUR this month (UTC)", or null without pricing. */
export function spentText(k: BudgetedKey): string | null {
  const s = k.spend;
  if (!s) return null;
  return `spent ${moneyText(s.today)} ${s.currency} today, ${moneyText(s.this_month)} ${s.currency} this month (UTC)`;
}

/**
 * Why the key is near or at a budget, for the overview and the CLI: "spent 4.10 of 5 EUR today
 * (82%; warns at 80%)"; at the budget, that the gateway refuses its calls until the window ends.
 */
export function nearBudgetText(k: BudgetedKey): string | null {
  const u = fullestBudget(k);
  if (!u || !k.spend) return null;
  const when = u.window === 'day' ? 'today' : 'this month';
  const words = `spent ${moneyText(u.spent)} of ${limitMoney(u.budget)} ${k.spend.currency} ${when} (${percent(u.share)}; warns at ${warnPercentOf(k)}%)`;
  return u.share >= 1
    ? `${words}: the gateway refuses its calls until the ${u.window === 'day' ? 'UTC day' : 'month'} ends`
    : words;
}

/**
 * A budget as a person types it (the keys screen's form, the CLI's --per-day): an amount of the
 * currency up to MAX_BUDGET with at most MONEY_DECIMALS places, or empty (or "none") for no budget.
 */
export function parseBudgetAmount(text: string): { ok: true; amount: number | null } | { ok: false; error: string } {
  const t = text.trim();
  if (t === '' || t.toLowerCase() === 'none') return { ok: true, amount: null };
  const decimals = `{0,${MONEY_DECIMALS}}`;
  if (!new RegExp(`^\\d+(\\.\\d${decimals})?$`).test(t))
    return {
      ok: false,
      error: `an amount such as 5 or 12.50 (at most ${MONEY_DECIMALS} decimal places), or empty (none) for no budget`,
    };
  const amount = Number(t);
  if (amount > MAX_BUDGET) return { ok: false, error: `at most ${MAX_BUDGET} a window` };
  return { ok: true, amount };
}
