/**
 * Gateway keys: calls rejected over the overview's window, keys near their quotas, keys about to
 * expire, and active keys nobody used for a month.
 */
import type { GatewayKey, KeyUsage, RejectionCause, Usage, UsageKey } from '../../contract/index.js';
import { sanitize } from '../../text/sanitize.js';
import { list, num } from './answers.js';
import { quotaLinkExtra } from '../kit/quota-link.js';
import { countOf, EXPIRY_WARNING_DAYS, expiryText, UNUSED_DAYS } from '../kit/key-lifecycle.js';
import { fullestBudget, isNearBudget, nearBudgetText } from '../kit/key-budget.js';
import { LAST_DAY, LAST_HOUR, LAST_WEEK, n, NEAR, plural, TODAY, type TriageLine } from './line.js';

const CAUSE_WORDS: Record<RejectionCause, string> = {
  requests_per_minute: 'requests/minute quota',
  tokens_per_minute: 'tokens/minute quota',
  tokens_per_day: 'tokens/day quota',
  revoked: 'key revoked',
  unknown_workload: 'unknown workload',
  expired: 'key expired',
  rotated: 'secret replaced by a rotation',
  budget: 'money budget',
};

/**
 * A usage entry's key as it is now: the entry carries it (its name, status and quota), so that a key
 * of any age is named and judged; an appliance that does not say it is read from `keys`.
 */
function keyOfUsage(u: KeyUsage, keys: Map<string, GatewayKey>): UsageKey | undefined {
  const carried = u.key as UsageKey | null | undefined;
  return carried && typeof carried.name === 'string' ? carried : keys.get(u.key_id);
}
const keyName = (u: KeyUsage, keys: Map<string, GatewayKey>) =>
  sanitize(String(keyOfUsage(u, keys)?.name ?? u.key_id), 40);

/** The window a usage answer covers, in the board's words: what its counts are said over. */
function windowOf(usage: Usage | undefined): string {
  const span = usage ? Date.parse(usage.end_time) - Date.parse(usage.start_time) : NaN;
  if (!(span > 61 * 60_000)) return LAST_HOUR;
  return span <= 25 * 3600_000 ? LAST_DAY : LAST_WEEK;
}

/** The unknown workload names a key asked for, most refused first: "summarize-v2 ×3, chat". */
const WORKLOAD_NAMES_SHOWN = 3;
export function refusedNames(u: Pick<KeyUsage, 'rejected_workloads'>, shown = WORKLOAD_NAMES_SHOWN): string {
  const names = Array.isArray(u.rejected_workloads) ? u.rejected_workloads : [];
  const text = names
    .slice(0, shown)
    .map((w) => `${sanitize(String(w.workload), 40)}${num(w.rejected) > 1 ? ` ×${n(num(w.rejected))}` : ''}`);
  if (names.length > shown) text.push(`${names.length - shown} more`);
  return text.join(', ');
}

/**
 * A key's refusals since its quota changed, when the change fell inside the window (some of the
 * window's refusals came before it): whether the change stopped them. Null when the appliance does not
 * say, or the change came before the window (every refusal counted is since it).
 */
function sinceQuotaChange(u: KeyUsage, keys: Map<string, GatewayKey>): { rejected: number; at: string } | null {
  const key = keyOfUsage(u, keys);
  const since = key?.rejected_since_quota_change;
  const changed = typeof key?.quota_changed_at === 'string' ? Date.parse(key.quota_changed_at) : NaN;
  // a key of the keys list whose quota never changed counts from its creation: no change to judge
  const created = key && 'created_at' in key ? key.created_at : undefined;
  if (created === key?.quota_changed_at) return null;
  if (typeof since !== 'number' || !Number.isFinite(changed) || since >= num(u.rejected)) return null;
  return { rejected: since, at: `${new Date(changed).toISOString().slice(11, 16)} UTC` };
}

/** Each key's refusals over the window its answer covers (the overview's H, D, W), by cause. */
export function rejectionLines(usage: Usage | undefined, keys = new Map<string, GatewayKey>()): TriageLine[] {
  const window = windowOf(usage);
  return list<Usage['data'][number]>(usage)
    .filter((u) => num(u.rejected) > 0)
    .sort((a, b) => num(b.rejected) - num(a.rejected))
    .map((u) => {
      const counted = Object.entries(u.rejected_by ?? {})
        .filter(([, c]) => num(c) > 0)
        .sort((a, b) => num(b[1]) - num(a[1]));
      const causes = counted.map(([cause, c]) => {
        const names = cause === 'unknown_workload' ? refusedNames(u) : '';
        return `${n(num(c))} ${CAUSE_WORDS[cause as RejectionCause] ?? cause}${names ? ` (${names})` : ''}`;
      });
      const since = sinceQuotaChange(u, keys);
      return {
        key: `key-rejections:${u.key_id}`,
        // a quota change in the window that stopped the refusals: the fix is confirmed, nothing to attend to
        severity: since?.rejected === 0 ? 'ok' : 'warn',
        what: `Key ${keyName(u, keys)}`,
        reason: `${plural(num(u.rejected), 'call')} rejected in the ${window}${causes.length ? `: ${causes.join(', ')}` : ''}${since ? `; ${since.rejected ? n(since.rejected) : 'none'} since its quota change at ${since.at}` : ''}`,
        count: num(u.rejected),
        window,
        // the quota form opened from here starts on the quota that refused the most
        link: { screen: 'keys', select: u.key_id, extra: quotaLinkExtra(u.key_id, counted[0]?.[0]) },
      } satisfies TriageLine;
    });
}

/**
 * Near a quota, defined simply: over the last hour, an average minute used >= 80% of the
 * per-minute quota (requests or tokens), or today's tokens (UTC day, as the gateway counts them)
 * reached >= 80% of the daily quota. Only a key with traffic in the hour or today can be near one,
 * and each usage entry carries its key's quota: every such key is judged, however many keys there are.
 */
export function quotaLines(
  hour: Usage | undefined,
  today: Usage | undefined,
  keys = new Map<string, GatewayKey>(),
): TriageLine[] {
  const lastHour = new Map(list<Usage['data'][number]>(hour).map((u) => [u.key_id, u]));
  const todayByKey = new Map(list<Usage['data'][number]>(today).map((u) => [u.key_id, u]));
  const withTraffic = new Map<string, UsageKey & { id: string }>();
  for (const u of [...lastHour.values(), ...todayByKey.values()]) {
    const k = keyOfUsage(u, keys);
    if (k && !withTraffic.has(u.key_id)) withTraffic.set(u.key_id, { ...k, id: u.key_id });
  }
  const lines: TriageLine[] = [];
  for (const key of withTraffic.values()) {
    if (key.status !== 'active' || !key.quota) continue;
    const near: { text: string; share: number; count: number; window: string; quota: string }[] = [];
    const h = lastHour.get(key.id);
    const rpm = key.quota.requests_per_minute;
    if (h && rpm) {
      const perMinute = num(h.requests) / 60;
      if (perMinute >= NEAR * rpm)
        near.push({
          text: `averaged ${n(Math.round(perMinute))} of ${n(rpm)} requests a minute over the last hour`,
          share: perMinute / rpm,
          count: num(h.requests),
          window: LAST_HOUR,
          quota: 'requests_per_minute',
        });
    }
    const tpm = key.quota.tokens_per_minute;
    if (h && tpm) {
      const perMinute = (num(h.input_tokens) + num(h.output_tokens)) / 60;
      if (perMinute >= NEAR * tpm)
        near.push({
          text: `averaged ${n(Math.round(perMinute))} of ${n(tpm)} tokens a minute over the last hour`,
          share: perMinute / tpm,
          count: Math.round(perMinute * 60),
          window: LAST_HOUR,
          quota: 'tokens_per_minute',
        });
    }
    const d = todayByKey.get(key.id);
    const tpd = key.quota.tokens_per_day;
    if (d && tpd) {
      const used = num(d.input_tokens) + num(d.output_tokens);
      if (used >= NEAR * tpd)
        near.push({
          text: `used ${n(used)} of ${n(tpd)} tokens today (UTC)`,
          share: used / tpd,
          count: used,
          window: TODAY,
          quota: 'tokens_per_day',
        });
    }
    if (!near.length) continue;
    near.sort((a, b) => b.share - a.share);
    lines.push({
      key: `key-quota:${key.id}`,
      severity: 'warn',
      what: `Key ${sanitize(String(key.name ?? key.id), 40)}`,
      reason: `${near[0].share >= 1 ? 'at' : 'near'} its quota: ${near.map((x) => x.text).join('; ')}`,
      count: near[0].count,
      window: near[0].window,
      link: { screen: 'keys', select: key.id, extra: quotaLinkExtra(key.id, near[0].quota) },
    });
  }
  return lines;
}

/** How many expiring keys the board names one by one; the rest are one line that opens them all. */
export const EXPIRY_LINES = 10;

/**
 * An active key that expires within EXPIRY_WARNING_DAYS: its clients are refused from then on,
 * unless it is rotated onto a new key or its expiry is moved (E on the keys screen). `expiring` is
 * the appliance's answer for those keys over every key, soonest first (the list's
 * expires_within_days, with its count): the first EXPIRY_LINES each get a line, the rest one more.
 */
export function expiryLines(expiring: unknown, nowMs: number): TriageLine[] {
  const soon = list<GatewayKey>(expiring).filter((k) => {
    const at = typeof k.expires_at === 'string' ? Date.parse(k.expires_at) : NaN;
    return k.status === 'active' && at > nowMs;
  });
  const lines: TriageLine[] = soon.slice(0, EXPIRY_LINES).map((k) => ({
    key: `key-expiry:${k.id}`,
    severity: 'warn',
    what: `Key ${sanitize(String(k.name ?? k.id), 40)}`,
    reason: `${expiryText(k, nowMs)}: its clients are refused from then on`,
    count: null,
    window: NEXT_WEEK,
    link: { screen: 'keys', select: k.id, extra: { unused: 'expiring' } },
  }));
  const total = countOf(expiring, soon.length);
  const rest = total.n - lines.length;
  if (rest > 0)
    lines.push({
      key: 'keys-expiring-more',
      severity: 'warn',
      what: 'Gateway keys',
      reason: `${capped(expiring) ? 'more than ' : ''}${n(rest)} other active key${rest === 1 ? ' expires' : 's expire'} within ${EXPIRY_WARNING_DAYS} days: their clients are refused from then on`,
      count: rest,
      window: NEXT_WEEK,
      link: { screen: 'keys', extra: { unused: 'expiring' } },
    });
  return lines;
}
const NEXT_WEEK = `next ${EXPIRY_WARNING_DAYS} d`;
/** The appliance stopped counting (the list's `total_capped`): its total is a lower bound. */
const capped = (page: unknown) => (page as { total_capped?: unknown } | undefined)?.total_capped === true;

/**
 * An active key that passed the share of a money budget it warns at (default 80%), or used it up:
 * soon, or already, the gateway refuses its calls (cause `budget`; those refusals have their own
 * line above) until the UTC day or month ends. It opens the keys screen on the key, where B changes its budget.
 * `budgeted` is the appliance's answer for the active keys with a budget (the list's has_budget),
 * each with its spend: those keys of any age, not the newest page of every key.
 */
export function budgetSpendLines(budgeted: unknown): TriageLine[] {
  const keys = list<GatewayKey>(budgeted);
  const lines: TriageLine[] = keys
    .filter((k) => k.status === 'active' && isNearBudget(k))
    .map((k) => ({ k, use: fullestBudget(k)! }))
    .sort((a, b) => b.use.share - a.use.share)
    .map(({ k, use }) => ({
      key: `key-budget:${k.id}`,
      severity: 'warn',
      what: `Key ${sanitize(String(k.name ?? k.id), 40)}`,
      reason: `${use.share >= 1 ? 'at' : 'near'} its money budget: ${nearBudgetText(k)}`,
      count: null,
      window: use.window === 'day' ? TODAY : THIS_MONTH,
      link: { screen: 'keys', select: k.id },
    }));
  // more keys have a budget than the page the board reads: it says whom it did not judge
  if ((budgeted as { has_more?: unknown } | undefined)?.has_more === true)
    lines.push({
      key: 'keys-budget-more',
      severity: 'warn',
      what: 'Gateway keys',
      reason: `more than ${n(keys.length)} active keys have a money budget: the board judged the newest ${n(keys.length)}; the keys screen's Spend column shows the others`,
      count: null,
      window: TODAY,
      link: { screen: 'keys' },
    });
  return lines;
}
const THIS_MONTH = 'this month';

/** How many unused keys the line names before "and N more" (the overview asks for as many). */
export const UNUSED_NAMED = 3;

/**
 * The active keys nobody used for UNUSED_DAYS (counting from creation for a key never used), as
 * one line: each is a credential someone holds and nobody needs. `unused` is the appliance's
 * answer over every key (the list's unused_days, longest unused first, with its count). It opens
 * the keys screen filtered to them.
 */
export function unusedKeysLine(unused: unknown): TriageLine[] {
  const idle = list<GatewayKey>(unused).filter((k) => k.status === 'active');
  const total = countOf(unused, idle.length);
  if (!idle.length || total.n === 0) return [];
  const names = idle.slice(0, UNUSED_NAMED).map((k) => sanitize(String(k.name ?? k.id), 40));
  const rest = total.n - names.length;
  const more = rest > 0 ? (capped(unused) ? ` and more than ${n(rest)} others` : ` and ${n(rest)} more`) : '';
  return [
    {
      key: 'keys-unused',
      severity: 'warn',
      what: 'Gateway keys',
      reason: `${total.text} active key${total.n === 1 ? '' : 's'} unused for ${UNUSED_DAYS} days: ${names.join(', ')}${more}; revoke what nobody needs`,
      count: total.n,
      window: `last ${UNUSED_DAYS} d`,
      link: { screen: 'keys', extra: { unused: '30d' } },
    },
  ];
}
