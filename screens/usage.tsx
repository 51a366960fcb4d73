import type { GatewayKey, KeyUsage, Quota, Usage } from '../src/contract/index.js';
import { REJECTION_CAUSES, type RejectionCause } from '../src/contract/rejection-causes.js';
import { defineScreen, type ScreenAction } from '../src/dashboard/kit/screen-api.js';
import { sparkline } from '../src/dashboard/kit/charts.js';
import { limitText, money, shortTime } from '../src/dashboard/kit/format.js';
import { quotaCauseOf, setQuotaAction } from '../src/dashboard/rules/quota.js';
import { refusedNames } from '../src/dashboard/triage/gateway-keys.js';
import { thousands } from '../src/text/thousands.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export type UsageRange = 'hour' | 'day' | 'week';

/**
 * Each range is a rolling window ending with the current minute. The last hour is asked for by the
 * minute (what confirms a fix: the minute the rejections stopped); the day and week by the hour,
 * starting on an hour boundary so that every bucket is a whole hour (except the current one).
 * `perMark`: buckets a chart mark sums, so that a chart fits about 60 columns.
 */
const RANGES: Record<UsageRange, { key: string; label: string; hours: number | null; perMark: number; unit: string }> =
  {
    hour: { key: 'H', label: 'last hour', hours: null, perMark: 1, unit: 'minute' },
    day: { key: 'D', label: 'last 24 hours', hours: 24, perMark: 1, unit: 'hour' },
    week: { key: 'W', label: 'last 7 days', hours: 168, perMark: 4, unit: '4 h' },
  };

export function usageWindow(range: UsageRange, nowMs: number): { start_time: string; end_time: string } {
  const minute = Math.floor(nowMs / MINUTE) * MINUTE;
  const hour = Math.floor(nowMs / HOUR) * HOUR;
  const hours = RANGES[range].hours;
  const start = hours === null ? minute - 59 * MINUTE : hour - (hours - 1) * HOUR;
  return { start_time: new Date(start).toISOString(), end_time: new Date(minute + MINUTE).toISOString() };
}

const rangeOf = (extra: Record<string, unknown>): UsageRange =>
  extra.range === 'hour' || extra.range === 'week' ? extra.range : 'day';

/** 1234567 -> "1.2M": token counts in a narrow column. */
export function compact(n: number | null | undefined): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–';
  if (n >= 1e9) return `${down(n, 1e9)}G`;
  if (n >= 1e6) return `${down(n, 1e6)}M`;
  if (n >= 1e4) return `${down(n, 1e3)}k`;
  return thousands(n);
}
/** Rounded down to a tenth of `unit`: 3,999,848 used of a 4,000,000 quota reads 3.9M, not 4M (at quota). */
const down = (n: number, unit: number) => Math.floor(n / (unit / 10)) / 10;
const count = (n: number | null | undefined) => (typeof n === 'number' && Number.isFinite(n) ? thousands(n) : '–');

/** Sums of `size` consecutive values, grouped from the newest end (a short group is the oldest). */
export function groupSums(values: number[], size: number): number[] {
  const out: number[] = [];
  for (let end = values.length; end > 0; end -= size) {
    out.unshift(values.slice(Math.max(0, end - size), end).reduce((a, b) => a + b, 0));
  }
  return out;
}

/** The range an answer covers: minute buckets are the last hour's, more than a day of hours the week's. */
function rangeOfAnswer(usage: Usage | undefined): UsageRange {
  if (usage?.bucket === 'minute') return 'hour';
  const span = usage ? Date.parse(usage.end_time) - Date.parse(usage.start_time) : NaN;
  return span > 25 * HOUR ? 'week' : 'day';
}

/** One key's row: its usage, the key as listed (its name and quota), and the range it covers. */
interface UsageRow {
  usage: KeyUsage;
  key: GatewayKey | undefined;
  range: UsageRange;
  /** the answer's currency; null: no pricing configured */
  currency: string | null;
}

function usageRows(data: unknown, related: Record<string, unknown>): UsageRow[] {
  const usage = data as Usage | undefined;
  const list = (related.keys as { data?: GatewayKey[] } | undefined)?.data;
  const keys = new Map((Array.isArray(list) ? list : []).map((k) => [k.id, k]));
  const range = rangeOfAnswer(usage);
  const currency = typeof usage?.currency === 'string' ? usage.currency : null;
  return (Array.isArray(usage?.data) ? usage.data : []).map((u) => ({
    usage: u,
    key: keys.get(u.key_id),
    range,
    currency,
  }));
}

const REVOKED = ' (revoked)';
/** The key's name, "(revoked)" when it is; its id when the key list does not have it. */
const nameOf = (r: UsageRow) =>
  r.key ? `${r.key.name ?? r.key.id}${r.key.status === 'revoked' ? REVOKED : ''}` : r.usage.key_id;

/**
 * Requests per mark, oldest first; a mark with a refused call is ×, so that the chart shows when
 * the refusals stopped. A dot for a mark without requests keeps the time axis visible.
 */
function chartOf(r: UsageRow): string {
  const buckets = r.usage.buckets ?? [];
  const per = RANGES[r.range].perMark;
  const marks = sparkline(
    groupSums(
      buckets.map((b) => b.requests ?? 0),
      per,
    ),
  ).replace(/ /g, '·');
  const refused = groupSums(
    buckets.map((b) => b.rejected ?? 0),
    per,
  );
  return [...marks].map((m, i) => (refused[i] > 0 ? REFUSED_MARK : m)).join('');
}
const REFUSED_MARK = '×';

/** The start of the newest bucket with a refusal, or null (none in the range, or not counted). */
function lastRejected(u: KeyUsage): string | null {
  const b = [...(u.buckets ?? [])].reverse().find((x) => (x.rejected ?? 0) > 0);
  return b?.start_time ?? null;
}

/** "last refused 14:02 UTC, none since": the minute a fix took, under the table and in Enter. */
function lastRejectedText(r: UsageRow): string {
  if (!(r.usage.rejected > 0)) return `none refused in the ${RANGES[r.range].label}`;
  const at = lastRejected(r.usage);
  if (!at) return `${count(r.usage.rejected)} refused in the ${RANGES[r.range].label}`;
  const buckets = r.usage.buckets ?? [];
  const newest = buckets.at(-1)?.start_time === at;
  const when = shortTime(at).slice(11);
  const unit = RANGES[r.range].perMark === 1 ? RANGES[r.range].unit : 'hour';
  return newest
    ? `refused in the current ${unit} (${when} UTC)`
    : `last refused in the ${unit} of ${when} UTC, none since`;
}

/**
 * The key's cost in the range: "4.12 EUR", with "+N unpriced" when some of its calls have no known
 * cost (an unpriced model, or made before costs were kept): those are not free.
 */
function costText(u: Pick<KeyUsage, 'cost' | 'unpriced_requests'>, currency: string | null): string {
  if (!currency) return '–';
  const unpriced = u.unpriced_requests ?? 0;
  return `${money(u.cost, currency)}${unpriced > 0 ? ` +${compact(unpriced)} unpriced` : ''}`;
}

/** Each cause as the detail names it, and the quota field it is the limit of. */
const CAUSES: Record<RejectionCause, { label: string; quota?: keyof Quota; per?: string }> = {
  requests_per_minute: { label: 'requests/min', quota: 'requests_per_minute', per: 'requests/min' },
  tokens_per_minute: { label: 'tokens/min', quota: 'tokens_per_minute', per: 'tokens/min' },
  tokens_per_day: { label: 'tokens/day', quota: 'tokens_per_day', per: 'tokens/day' },
  revoked: { label: 'key revoked' },
  unknown_workload: { label: 'unknown workload' },
  expired: { label: 'key expired' },
  rotated: { label: 'replaced secret' },
  budget: { label: 'money budget' },
};

/** Enter on a key: its refusals by cause, each beside the quota that caused it (u raises it). */
function rejectionDetail(r: UsageRow): Record<string, unknown> {
  const u = r.usage;
  const out: Record<string, unknown> = {
    key: r.key ? `${r.key.name} (${u.key_id})` : u.key_id,
    status: r.key?.status ?? 'not on the key list',
    window: RANGES[r.range].label,
    requests: count(u.requests),
    cost: r.currency
      ? `${money(u.cost, r.currency)} (priced calls)${u.unpriced_requests ? `; ${count(u.unpriced_requests)} calls of unknown cost (unpriced model, or before costs were kept)` : ''}`
      : 'no pricing configured on this appliance',
    rejected: count(u.rejected),
    'last refused': lastRejectedText(r),
  };
  // flat lines (the detail view prefixes nested ones with their parent, which the width cuts)
  for (const c of REJECTION_CAUSES) {
    const cause = CAUSES[c];
    const n = count(u.rejected_by?.[c]);
    out[`rejected: ${cause.label}`] = cause.quota
      ? `${n}  (quota ${r.key ? `${limitText(r.key.quota?.[cause.quota])} ${cause.per}` : 'unknown'})`
      : n;
  }
  const names = refusedNames(u, 10);
  if (names) out['unknown workloads asked for'] = names;
  if (r.key?.quota_changed_at)
    out['since the quota changed'] =
      `${count(r.key.rejected_since_quota_change)} rejected (${r.key.quota_changed_at === r.key.created_at ? 'quota set at creation' : 'changed'} ${shortTime(r.key.quota_changed_at)} UTC)`;
  out.next = `${r.key?.status === 'active' ? 'u sets the quota · ' : ''}m shows its cost by model (b: by workload) · Esc goes back`;
  return out;
}

const rangeAction = (range: UsageRange): ScreenAction<UsageRow> => ({
  key: RANGES[range].key,
  label: range === 'week' ? '7 days' : range,
  mutates: false,
  async run(ctx) {
    ctx.setExtra({ range });
  },
});

/** "Last hour by minute" and "08:42 → 09:42 UTC": the range the rows cover, from the answer. */
function rangeTitle(usage: Usage | undefined): { title: string; span: string } {
  if (!usage?.start_time) return { title: 'Loading…', span: '' };
  const range = RANGES[rangeOfAnswer(usage)];
  const from = shortTime(usage.start_time);
  const to = shortTime(usage.end_time);
  return {
    title: `${range.label[0].toUpperCase()}${range.label.slice(1)} by ${range.unit}`,
    span: `${from} → ${to.slice(0, 10) === from.slice(0, 10) ? to.slice(11) : to} UTC`,
  };
}

export const usageScreen = defineScreen<UsageRow>({
  name: 'usage',
  title: 'Gateway usage',
  ranges: { extra: 'range', values: ['hour', 'day', 'week'] },
  resources: (state) => {
    const range = rangeOf(state.extra);
    return [
      {
        id: 'usage',
        route: 'usage',
        query: { bucket: range === 'hour' ? 'minute' : 'hour' },
        rolling: { as: range, query: (now) => usageWindow(range, now) },
      },
      { id: 'keys', route: 'listKeys', query: { limit: 500 } },
    ];
  },
  list: {
    rows: usageRows,
    // the chart takes the room left and gives way first, keeping its newest marks
    columns: [
      { header: 'Key', value: nameOf, minWidth: 12, maxWidth: 30 },
      // with thousands separators, as the summary above and the token columns beside them
      {
        header: 'Requests',
        value: (r) => count(r.usage.requests),
        sort: (r) => r.usage.requests ?? null,
        align: 'right',
        minWidth: 8,
      },
      {
        header: 'Rejected',
        value: (r) => count(r.usage.rejected),
        sort: (r) => r.usage.rejected ?? null,
        align: 'right',
        minWidth: 8,
        tone: (r) => (r.usage.rejected > 0 ? 'warn' : undefined),
      },
      {
        header: 'Cost',
        value: (r) => costText(r.usage, r.currency),
        sort: (r) => r.usage.cost ?? null,
        tone: (r) => (r.currency && (r.usage.unpriced_requests ?? 0) > 0 ? 'warn' : undefined),
        align: 'right',
        // on a short line it narrows before the key's name; the cursor line says it whole
        givesWay: true,
        minWidth: 10,
        maxWidth: 24,
      },
      {
        header: 'In tok',
        value: (r) => compact(r.usage.input_tokens),
        sort: (r) => r.usage.input_tokens ?? null,
        align: 'right',
        minWidth: 7,
      },
      {
        header: 'Out tok',
        value: (r) => compact(r.usage.output_tokens),
        sort: (r) => r.usage.output_tokens ?? null,
        align: 'right',
        minWidth: 7,
      },
      {
        header: `Requests (${REFUSED_MARK} refused), oldest → now`,
        value: chartOf,
        sort: (r) => r.usage.requests ?? null,
        grow: true,
        givesWay: true,
        keepsEnd: true,
        minWidth: 8,
        maxWidth: 60,
      },
    ],
    rowKey: (r) => r.usage.key_id,
    empty: 'No traffic in this range: no gateway key made a request between these times.',
    // the range, then the totals (the tokens are in the columns), then its times: a narrow terminal
    // cuts the end of the line, and the totals are what it is read for (as spend's); the filter's count follows it
    summary: (rows, view) => {
      const requests = rows.reduce((n, r) => n + (r.usage.requests ?? 0), 0);
      const rejected = rows.reduce((n, r) => n + (r.usage.rejected ?? 0), 0);
      const cost = rows.reduce((n, r) => n + (r.usage.cost ?? 0), 0);
      const currency = (view?.data as Usage | undefined)?.currency;
      const { title, span } = rangeTitle(view?.data as Usage | undefined);
      return [
        title,
        `${rows.length} key${rows.length === 1 ? '' : 's'}`,
        `${count(requests)} requests`,
        `${count(rejected)} rejected`,
        ...(currency ? [money(cost, currency)] : []),
        span,
      ]
        .filter(Boolean)
        .join(' · ');
    },
    // the answer to "did the rejections stop?", whatever the width
    cursorLine: (r) => {
      const names = refusedNames(r.usage);
      const unpriced =
        r.currency && (r.usage.unpriced_requests ?? 0) > 0 ? ` · cost ${costText(r.usage, r.currency)}` : '';
      return `${nameOf(r)}: ${lastRejectedText(r)}${unpriced}${names ? ` · unknown workloads asked for: ${names}` : ''}`;
    },
  },
  detail: rejectionDetail,
  actions: [
    rangeAction('hour'),
    rangeAction('day'),
    rangeAction('week'),
    setQuotaAction<UsageRow>(
      (r) => r.key,
      (r) => quotaCauseOf(r.usage.rejected_by),
    ),
    {
      key: 'm',
      label: 'cost by model',
      hintShort: 'cost',
      mutates: false,
      needsRow: true,
      hintPriority: 55,
      // the key's cost by model and workload is the spend screen's, on this key alone, over the window
      // read here (spend's shortest is the last 24 hours: the last hour opens on that)
      run(ctx, r) {
        ctx.open({
          screen: 'spend',
          extra: {
            key_id: r.usage.key_id,
            key_name: r.key?.name ?? null,
            by: 'model',
            range: r.range === 'week' ? 'week' : 'day',
          },
        });
        return Promise.resolve();
      },
    },
  ],
});
