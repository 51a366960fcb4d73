import type { Spend, SpendGroup } from '../src/contract/index.js';
import { defineScreen, type ScreenAction } from '../src/dashboard/kit/screen-api.js';
import { sparkline } from '../src/dashboard/kit/charts.js';
import { money, shortTime } from '../src/dashboard/kit/format.js';
import { thousands } from '../src/text/thousands.js';
import { compact } from './usage.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export type SpendRange = 'day' | 'week' | 'month';
export type SpendBy = 'model' | 'workload' | 'key';

/**
 * Rolling windows ending with the current minute: the last 24 hours by the hour (from an hour's
 * start), the last 7 and 30 days by the UTC day (from a midnight), so every bucket but the current
 * one is whole.
 */
const RANGES: Record<SpendRange, { key: string; label: string; bucket: 'hour' | 'day'; count: number }> = {
  day: { key: 'D', label: 'last 24 hours', bucket: 'hour', count: 24 },
  week: { key: 'W', label: 'last 7 days', bucket: 'day', count: 7 },
  month: { key: 'M', label: 'last 30 days', bucket: 'day', count: 30 },
};
const BY_ORDER: SpendBy[] = ['model', 'workload', 'key'];

export function spendWindow(range: SpendRange, nowMs: number): { start_time: string; end_time: string } {
  const { bucket, count } = RANGES[range];
  const size = bucket === 'hour' ? HOUR : DAY;
  const start = Math.floor(nowMs / size) * size - (count - 1) * size;
  const end = Math.floor(nowMs / MINUTE) * MINUTE + MINUTE;
  return { start_time: new Date(start).toISOString(), end_time: new Date(end).toISOString() };
}

const rangeOf = (extra: Record<string, unknown>): SpendRange =>
  extra.range === 'day' || extra.range === 'month' ? extra.range : 'week';
const byOf = (extra: Record<string, unknown>): SpendBy =>
  extra.by === 'workload' || extra.by === 'key' ? extra.by : 'model';
const keyOf = (extra: Record<string, unknown>): string | undefined =>
  typeof extra.key_id === 'string' && extra.key_id ? extra.key_id : undefined;

/** One group's row, with the answer's currency and grouping. */
interface SpendRow {
  g: SpendGroup;
  currency: string | null;
  by: SpendBy;
  /** its share of the listed cost, 0 to 1 */
  share: number;
}

function spendRows(data: unknown): SpendRow[] {
  const spend = data as Spend | undefined;
  // an appliance of another shape may send anything: a group that is not an object is left out
  const groups = (Array.isArray(spend?.data) ? spend.data : []).filter(
    (g): g is SpendGroup => typeof g === 'object' && g !== null && typeof g.group === 'string',
  );
  const total = groups.reduce((n, g) => n + (g.cost ?? 0), 0);
  const currency = typeof spend?.currency === 'string' ? spend.currency : null;
  const by = spend?.group_by ?? 'model';
  return groups.map((g) => ({ g, currency, by, share: total > 0 ? (g.cost ?? 0) / total : 0 }));
}

/** The group as read: the model's or key's name, a workload's name, "(no model served)". */
function groupText(r: SpendRow): string {
  const { group, name } = r.g;
  if (r.by === 'model' && group === '') return '(no model served)';
  return name || group;
}

/** The name with its id, under the table and in the summary of one key. */
function groupWithId(r: SpendRow): string {
  const text = groupText(r);
  return r.g.group && text !== r.g.group ? `${text} (${r.g.group})` : text;
}

const count = (n: number | null | undefined) => (typeof n === 'number' && Number.isFinite(n) ? thousands(n) : '–');

/** "12.34 EUR", "unpriced" when none of its calls has a known cost, and the unpriced calls apart. */
function costCell(r: SpendRow): string {
  if (!r.currency) return '–';
  if (r.g.requests > 0 && r.g.unpriced_requests === r.g.requests) return 'unpriced';
  return money(r.g.cost, r.currency);
}

/**
 * Enter on a model or a workload: its figures in words and each bucket on a line (the row itself
 * wraps the appliance's group, which the generic detail showed as "g.buckets[3].cost" and a share
 * of 0.5568027066816783).
 */
function spendDetail(r: SpendRow): Record<string, unknown> {
  const { g, currency } = r;
  const cost = (n: number | null | undefined) => (currency ? money(n, currency) : '–');
  const out: Record<string, unknown> = {
    [r.by]: groupWithId(r),
    cost: currency ? `${cost(g.cost)} (priced calls)` : 'no pricing configured on this appliance',
    share: `${Math.round(r.share * 100)}% of the cost listed`,
    requests: count(g.requests),
    'unpriced calls': g.unpriced_requests ? `${count(g.unpriced_requests)} (their cost is unknown, not zero)` : '0',
    'input tokens': count(g.input_tokens),
    'output tokens': count(g.output_tokens),
  };
  for (const b of g.buckets ?? [])
    out[`${shortTime(b.start_time)} UTC`] =
      `${count(b.requests)} requests · ${cost(b.cost)}${b.unpriced_requests ? ` · ${count(b.unpriced_requests)} unpriced` : ''}`;
  return out;
}

const rangeAction = (range: SpendRange): ScreenAction<SpendRow> => ({
  key: RANGES[range].key,
  label: range === 'day' ? '24 h' : range === 'week' ? '7 days' : '30 days',
  mutates: false,
  async run(ctx) {
    ctx.setExtra({ range });
  },
});

/** "Last 7 days by day" and "22 Nov 00:00 → 29 Nov 10:42 UTC", from the answer. */
function rangeTitle(spend: Spend | undefined): { title: string; span: string } {
  if (!spend?.start_time) return { title: 'Loading…', span: '' };
  const span = Date.parse(spend.end_time) - Date.parse(spend.start_time);
  const range = spend.bucket === 'hour' ? RANGES.day : span > 8 * DAY ? RANGES.month : RANGES.week;
  return {
    title: `${range.label[0].toUpperCase()}${range.label.slice(1)} by ${spend.bucket}`,
    span: `${shortTime(spend.start_time)} → ${shortTime(spend.end_time)} UTC`,
  };
}

export const spendScreen = defineScreen<SpendRow>({
  name: 'spend',
  title: 'Gateway spend',
  ranges: { extra: 'range', values: ['day', 'week', 'month'] },
  groupings: { extra: 'by', values: BY_ORDER },
  resources: (state) => {
    const range = rangeOf(state.extra);
    const key = keyOf(state.extra);
    return [
      {
        id: 'spend',
        route: 'spend',
        query: {
          bucket: RANGES[range].bucket,
          group_by: byOf(state.extra),
          limit: 500,
          ...(key ? { key_id: key } : {}),
        },
        rolling: { as: range, query: (now) => spendWindow(range, now) },
        everyMs: 10_000,
      },
    ];
  },
  list: {
    rows: spendRows,
    columns: [
      { header: 'Group', value: groupText, minWidth: 12, maxWidth: 60, keep: true },
      {
        header: 'Cost',
        value: costCell,
        sort: (r) => r.g.cost ?? null,
        tone: (r) => (r.currency && r.g.unpriced_requests > 0 ? 'warn' : undefined),
        align: 'right',
        minWidth: 9,
        keep: true,
      },
      {
        header: 'Share',
        value: (r) => `${Math.round(r.share * 100)}%`,
        sort: (r) => r.share,
        align: 'right',
        width: 5,
      },
      {
        header: 'Requests',
        value: (r) => count(r.g.requests),
        sort: (r) => r.g.requests ?? null,
        align: 'right',
        minWidth: 8,
      },
      {
        header: 'Unpriced',
        value: (r) => count(r.g.unpriced_requests),
        sort: (r) => r.g.unpriced_requests ?? null,
        tone: (r) => (r.g.unpriced_requests > 0 ? 'warn' : undefined),
        align: 'right',
        minWidth: 8,
      },
      {
        header: 'In tok',
        value: (r) => compact(r.g.input_tokens),
        sort: (r) => r.g.input_tokens ?? null,
        align: 'right',
        minWidth: 7,
      },
      {
        header: 'Out tok',
        value: (r) => compact(r.g.output_tokens),
        sort: (r) => r.g.output_tokens ?? null,
        align: 'right',
        minWidth: 7,
      },
      {
        header: 'Cost, oldest → now',
        value: (r) => sparkline((r.g.buckets ?? []).map((b) => b.cost ?? 0)).replace(/ /g, '·'),
        sort: (r) => r.g.cost ?? null,
        grow: true,
        givesWay: true,
        keepsEnd: true,
        minWidth: 8,
        maxWidth: 40,
      },
    ],
    rowKey: (r) => r.g.group,
    empty: 'No metered calls in this range (calls metered before costs were kept are in usage, as unpriced).',
    summary: (rows, view) => {
      const spend = view?.data as Spend | undefined;
      const cost = rows.reduce((n, r) => n + (r.g.cost ?? 0), 0);
      const unpriced = rows.reduce((n, r) => n + (r.g.unpriced_requests ?? 0), 0);
      const by = spend?.group_by ?? byOf(view?.state.extra ?? {});
      const key = keyOf(view?.state.extra ?? {});
      const keyName = view?.state.extra.key_name;
      // the total first: a narrow terminal cuts the end of the line
      const { title, span } = rangeTitle(spend);
      return [
        title,
        spend?.currency ? money(cost, spend.currency) : 'no pricing configured',
        ...(unpriced ? [`${count(unpriced)} call${unpriced === 1 ? '' : 's'} of unknown cost`] : []),
        ...(key ? [`key ${typeof keyName === 'string' && keyName ? keyName : key}`] : []),
        `${rows.length} ${by === 'key' ? 'key' : by}${rows.length === 1 ? '' : 's'}${spend?.has_more ? ' (the 500 most costly)' : ''}`,
        span,
      ]
        .filter(Boolean)
        .join(' · ');
    },
    cursorLine: (r) =>
      `${groupWithId(r)}: ${costCell(r)}${r.g.unpriced_requests ? `, and ${count(r.g.unpriced_requests)} calls to a model without a price (their cost is unknown, not zero)` : ''}`,
  },
  // a key's row opens its own cost by model; a model's or a workload's shows its figures
  detail: spendDetail,
  open: (r) =>
    r.by === 'key' ? { screen: 'spend', extra: { key_id: r.g.group, key_name: r.g.name, by: 'model' } } : null,
  actions: [
    rangeAction('day'),
    rangeAction('week'),
    rangeAction('month'),
    {
      key: 'b',
      label: 'group by',
      hintShort: 'by',
      mutates: false,
      hintPriority: 62,
      // model → workload → key → model
      async run(ctx) {
        const next = BY_ORDER[(BY_ORDER.indexOf(byOf(ctx.state.extra)) + 1) % BY_ORDER.length];
        ctx.setExtra({ by: next }, { top: true });
      },
    },
    {
      intent: 'clear-filter',
      label: 'all keys',
      mutates: false,
      // without a key chosen the list already has every key's calls: c would do nothing
      unavailable: (_row, state) => (keyOf(state.extra) ? null : 'already showing all keys'),
      async run(ctx) {
        if (keyOf(ctx.state.extra)) ctx.setExtra({ key_id: undefined, key_name: undefined }, { top: true });
      },
    },
  ],
});
