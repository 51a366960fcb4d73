import React, { useEffect } from 'react';
import { Box, Text } from 'ink';
import type { GatewayKey, KeyUsage, Quota, Usage } from '../src/contract/index.js';
import { REJECTION_CAUSES, type RejectionCause } from '../src/contract/rejection-causes.js';
import {
  defineScreen,
  type ResourceEntry,
  type ScreenAction,
  type ScreenUiState,
} from '../src/dashboard/kit/screen-api.js';
import { bar, sparkline } from '../src/dashboard/kit/charts.js';
import { limitText, shortTime } from '../src/dashboard/kit/format.js';
import { sanitize } from '../src/text/sanitize.js';
import { fit, truncate, widthOf } from '../src/dashboard/kit/text.js';
import { quotaCauseOf, setQuotaAction } from '../src/dashboard/rules/quota.js';
import { thousands } from '../src/text/thousands.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export type UsageRange = 'hour' | 'day' | 'week';

/**
 * Each range is a rolling window ending with the current minute. The appliance buckets by hour
 * at the finest, so the last hour is shown as totals; the day and week start on an hour boundary
 * so that every hourly bucket is a whole hour (except the current one).
 */
const RANGES: Record<UsageRange, { key: string; label: string; hours: number | null }> = {
  hour: { key: 'H', label: 'last hour', hours: null },
  day: { key: 'D', label: 'last 24 hours', hours: 24 },
  week: { key: 'W', label: 'last 7 days', hours: 168 },
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

/** Hours per chart mark: the smallest that fits, dividing a day evenly so marks are whole sums. */
const GROUPS = [1, 2, 3, 4, 6, 8, 12, 24, 48, 168];
export function hoursPerMark(buckets: number, width: number): number {
  return GROUPS.find((g) => Math.ceil(buckets / g) <= width) ?? Math.ceil(buckets / Math.max(1, width));
}

/** Sums of `size` consecutive values, grouped from the newest end (a short group is the oldest). */
export function groupSums(values: number[], size: number): number[] {
  const out: number[] = [];
  for (let end = values.length; end > 0; end -= size) {
    out.unshift(values.slice(Math.max(0, end - size), end).reduce((a, b) => a + b, 0));
  }
  return out;
}

interface KeyInfo {
  name: string;
  revoked: boolean;
  key: GatewayKey;
}
function keyNames(entry: ResourceEntry | undefined): Map<string, KeyInfo> {
  const list = (entry?.data as { data?: GatewayKey[] } | undefined)?.data;
  return new Map(
    (Array.isArray(list) ? list : []).map((k) => [
      k.id,
      { name: k.name ?? k.id, revoked: k.status === 'revoked', key: k },
    ]),
  );
}

const labelOf = (keys: Map<string, KeyInfo>, u: KeyUsage) => {
  const k = keys.get(u.key_id);
  return sanitize(k ? `${k.name}${k.revoked ? REVOKED : ''}` : u.key_id, 100);
};

/** The keys shown: `/` narrows them by name or id. */
function shownKeys(all: KeyUsage[], keys: Map<string, KeyInfo>, filter: string): KeyUsage[] {
  const needle = filter.toLowerCase();
  return needle ? all.filter((u) => `${labelOf(keys, u)}\u0000${u.key_id}`.toLowerCase().includes(needle)) : all;
}

/** The row under the cursor: a key's usage, the key as listed (its quota), and the range. */
interface UsageRow {
  usage: KeyUsage;
  key: GatewayKey | undefined;
  range: UsageRange;
}

function selectedRow(resources: Record<string, ResourceEntry>, state: ScreenUiState): UsageRow | undefined {
  const usage = resources.usage?.data as Usage | undefined;
  if (!usage || !Array.isArray(usage.data)) return undefined;
  const keys = keyNames(resources.keys);
  const rows = shownKeys(usage.data, keys, state.filter);
  const u = rows[Math.min(Math.max(0, state.scroll), rows.length - 1)];
  return u ? { usage: u, key: keys.get(u.key_id)?.key, range: rangeOf(state.extra) } : undefined;
}

/** Each cause as the detail names it, and the quota field it is the limit of. */
const CAUSES: Record<RejectionCause, { label: string; quota?: keyof Quota; per?: string }> = {
  requests_per_minute: { label: 'requests/min', quota: 'requests_per_minute', per: 'requests/min' },
  tokens_per_minute: { label: 'tokens/min', quota: 'tokens_per_minute', per: 'tokens/min' },
  tokens_per_day: { label: 'tokens/day', quota: 'tokens_per_day', per: 'tokens/day' },
  revoked: { label: 'key revoked' },
  unknown_workload: { label: 'unknown workload' },
};

/** Enter on a key: its refusals by cause, each beside the quota that caused it (u raises it). */
function rejectionDetail(r: UsageRow): Record<string, unknown> {
  const u = r.usage;
  const out: Record<string, unknown> = {
    key: r.key ? `${r.key.name} (${u.key_id})` : u.key_id,
    status: r.key?.status ?? 'not on the key list',
    window: RANGES[r.range].label,
    requests: count(u.requests),
    rejected: count(u.rejected),
  };
  // flat lines (the detail view prefixes nested ones with their parent, which the width cuts)
  for (const c of REJECTION_CAUSES) {
    const cause = CAUSES[c];
    const n = count(u.rejected_by?.[c]);
    out[`rejected: ${cause.label}`] = cause.quota
      ? `${n}  (quota ${r.key ? `${limitText(r.key.quota?.[cause.quota])} ${cause.per}` : 'unknown'})`
      : n;
  }
  out.next = r.key?.status === 'active' ? 'u sets the quota · Esc goes back' : 'Esc goes back';
  return out;
}

const REVOKED = ' (revoked)';
const NUM = { requests: 8, rejected: 8, input: 7, output: 7 };
/** indent, gaps around the name and the chart (2) and between the numbers (1) */
const FIXED = 2 + 2 + NUM.requests + 1 + NUM.rejected + 1 + NUM.input + 1 + NUM.output + 2;

function UsageView({
  usage,
  keys,
  range,
  filter,
  width,
  height,
  scroll,
  setScroll,
}: {
  usage: Usage;
  keys: Map<string, KeyInfo>;
  range: UsageRange;
  filter: string;
  width: number;
  height: number;
  scroll: number;
  setScroll(n: number): void;
}) {
  const all: KeyUsage[] = Array.isArray(usage.data) ? usage.data : [];
  const fullLabel = (u: KeyUsage) => labelOf(keys, u);
  // `/` narrows the keys by name or id; the columns stay sized for all of them
  const needle = filter.toLowerCase();
  const rows = shownKeys(all, keys, filter);
  const longest = Math.max(8, ...all.map((u) => widthOf(fullLabel(u))));
  const hourly = RANGES[range].hours !== null;
  // the chart keeps a day of hourly marks; long key names give way first
  const nameWidth = Math.max(8, Math.min(longest, 32, width - FIXED - (hourly ? 24 : 10) - 1));
  const chartWidth = Math.max(4, width - FIXED - nameWidth - 1);
  // a long name is cut before its "(revoked)", which must stay readable
  const label = (u: KeyUsage) => {
    const k = keys.get(u.key_id);
    return k?.revoked ? `${truncate(sanitize(k.name, 100), nameWidth - REVOKED.length)}${REVOKED}` : fullLabel(u);
  };
  const buckets = all[0]?.buckets?.length ?? 0;
  const perMark = hoursPerMark(buckets, chartWidth);
  const per = `Requests per ${perMark === 1 ? 'hour' : `${perMark} h`}`;
  const chartTitle = hourly
    ? widthOf(`${per}, oldest → now`) <= chartWidth
      ? `${per}, oldest → now`
      : per
    : 'Requests, relative';
  const maxRequests = Math.max(0, ...all.map((u) => u.requests ?? 0));

  const totals = rows.reduce(
    (t, u) => ({
      requests: t.requests + (u.requests ?? 0),
      rejected: t.rejected + (u.rejected ?? 0),
      input: t.input + (u.input_tokens ?? 0),
      output: t.output + (u.output_tokens ?? 0),
    }),
    { requests: 0, rejected: 0, input: 0, output: 0 },
  );
  const line = (name: string, req: string, rej: string, inp: string, out: string, chart: string) =>
    `  ${fit(name, nameWidth)}  ${fit(req, NUM.requests, 'right')} ${fit(rej, NUM.rejected, 'right')} ${fit(inp, NUM.input, 'right')} ${fit(out, NUM.output, 'right')}  ${truncate(chart, chartWidth)}`;

  const from = shortTime(usage.start_time);
  const to = shortTime(usage.end_time);
  const title = `${RANGES[range].label[0].toUpperCase()}${RANGES[range].label.slice(1)} · ${from} → ${to.slice(0, 10) === from.slice(0, 10) ? to.slice(11) : to} UTC`;
  const note = hourly ? '' : ' · totals only: hourly buckets';
  const room = Math.max(1, height - 4);
  // the cursor is the scroll position (↑↓, End); the window follows it
  const cursor = Math.max(0, Math.min(scroll, rows.length - 1));
  const top = Math.max(0, cursor - room + 1);
  const shown = rows.slice(top, top + room);
  useEffect(() => {
    if (scroll > cursor) setScroll(cursor);
  }, [scroll, cursor, setScroll]);

  return (
    <Box flexDirection="column" height={height}>
      <Text wrap="truncate">
        <Text bold>{title}</Text>
        <Text dimColor>{note}</Text>
      </Text>
      <Text bold underline wrap="truncate">
        {line('Key', 'Requests', 'Rejected', 'In tok', 'Out tok', chartTitle)}
      </Text>
      {rows.length === 0 ? (
        <Text dimColor wrap="truncate">
          {all.length === 0
            ? '  No traffic in this range: no gateway key made a request between these times.'
            : `  No key with traffic in this range matches "${filter}" (Esc clears the filter).`}
        </Text>
      ) : null}
      {shown.map((u, i) => {
        const selected = top + i === cursor;
        const values = (u.buckets ?? []).map((b) => b.requests ?? 0);
        // a dot for a period without requests keeps the time axis visible
        const chart = hourly
          ? sparkline(groupSums(values, perMark)).replace(/ /g, '·')
          : bar(u.requests ?? 0, maxRequests, chartWidth);
        return (
          <Text key={u.key_id} wrap="truncate" inverse={selected}>
            {`${selected ? '›' : ' '}${line(label(u), count(u.requests), count(u.rejected), compact(u.input_tokens), compact(u.output_tokens), chart).slice(1)}`}
          </Text>
        );
      })}
      <Box flexGrow={1} />
      <Text dimColor wrap="truncate">
        {rows.length === 0
          ? ' '
          : `  ${needle ? `${rows.length} of ${all.length} keys match "${filter}"` : `${rows.length} key${rows.length === 1 ? '' : 's'}`}${rows.length > room ? ` (${top + 1}–${top + shown.length} shown)` : ''} · ${count(totals.requests)} requests · ${count(totals.rejected)} rejected · tokens ${compact(totals.input)} in, ${compact(totals.output)} out`}
      </Text>
    </Box>
  );
}

const rangeAction = (range: UsageRange): ScreenAction<UsageRow> => ({
  key: RANGES[range].key,
  label: range === 'week' ? '7 days' : range,
  mutates: false,
  async run(ctx) {
    ctx.setExtra({ range });
  },
});

export const usageScreen = defineScreen<UsageRow>({
  name: 'usage',
  title: 'Gateway usage',
  resources: (state) => {
    const range = rangeOf(state.extra);
    return [
      {
        id: 'usage',
        route: 'usage',
        query: { bucket: 'hour' },
        rolling: { as: range, query: (now) => usageWindow(range, now) },
      },
      { id: 'keys', route: 'listKeys', query: { limit: 500 } },
    ];
  },
  render: ({ resources, width, height, state, setScroll }) => {
    const usage = resources.usage?.data as Usage | undefined;
    if (!usage) return <Text dimColor>Loading…</Text>;
    return (
      <UsageView
        usage={usage}
        keys={keyNames(resources.keys)}
        range={rangeOf(state.extra)}
        filter={state.filter}
        width={width}
        height={height}
        scroll={state.scroll}
        setScroll={setScroll}
      />
    );
  },
  filter: true,
  selected: selectedRow,
  detail: rejectionDetail,
  actions: [
    rangeAction('hour'),
    rangeAction('day'),
    rangeAction('week'),
    setQuotaAction<UsageRow>(
      (r) => r.key,
      (r) => quotaCauseOf(r.usage.rejected_by),
    ),
  ],
});
