import * as z from 'zod';
import type { Db } from '../db/sqlite-driver.js';
import { iso } from '../ids.js';
import { decodeCursor, encodeCursor } from '../http/paging.js';
import { amountOfNanos, type Spend, type SpendGroupBy, type UsageBucketSize } from '../../contract/index.js';
import { sumSpend, type SpendColumn, type SpendSums } from './spend-summary.js';
import { usageRange } from './usage.js';

const MINUTE_MS = 60_000;
const COLUMN: Record<SpendGroupBy, SpendColumn> = { model: 'model_id', workload: 'workload', key: 'key_id' };

export interface SpendRequest {
  start_time?: string;
  end_time?: string;
  bucket: UsageBucketSize;
  group_by: SpendGroupBy;
  key_id?: string;
  limit: number;
  after?: string;
}

/** Where the last page ended: its last group's cost and id (the list's order). */
const SpendCursor = z.object({ c: z.number().int(), g: z.string() });

/**
 * What the gateway cost over the buckets that [start, end) overlaps, by model, workload or key, most
 * costly first, paged; each group with its buckets (every one, zeros included). The range rules are
 * usage's (usageRange), but each bucket counts whole: the range read is widened to the buckets' edges
 * (the answer's start_time and end_time say so), and read from usage_spend at the bucket's own grain
 * only, so that 30 days by day read a row per key, model and workload a day, not the hours and minutes
 * at the range's ends (usage, which counts minutes exactly, reads those). Only calls metered with
 * their spend are here: usage counts those metered before costs were kept as unpriced.
 */
export function querySpend(
  db: Db,
  q: SpendRequest,
  nowMs: number,
  o: { currency: string | null; nameOf: (group: string) => string | null },
): Spend {
  const { size, firstBucket, bucketCount } = usageRange(q, nowMs);
  const segments = [{ grain: q.bucket, from: firstBucket * size, to: (firstBucket + bucketCount) * size }];
  const column = COLUMN[q.group_by];
  // Models and workloads are few: one read by group and bucket gives the totals too. Keys may be a
  // million: their costs are read first, to rank them, and the buckets of the page's keys only, which
  // give those keys' totals.
  const byBucket =
    q.group_by === 'key' ? null : sumSpend(db, segments, column, { keyId: q.key_id, bucketMinutes: size });
  const ranked = byBucket ? totalsOf(byBucket) : sumSpend(db, segments, column, { keyId: q.key_id, costOnly: true });
  const totals = ranked.sort((a, b) => b.cost_nanos - a.cost_nanos || (a.g < b.g ? -1 : a.g > b.g ? 1 : 0));
  let start = 0;
  if (q.after !== undefined) {
    const { c, g } = decodeCursor(q.after, SpendCursor);
    start = totals.findIndex((t) => t.cost_nanos < c || (t.cost_nanos === c && t.g > g));
    if (start < 0) start = totals.length;
  }
  const page = totals.slice(start, start + q.limit);
  const hasMore = start + q.limit < totals.length;

  const buckets = new Map(
    page.map((t) => [
      t.g,
      Array.from({ length: bucketCount }, (_, i) => ({
        start_time: iso((firstBucket + i) * size * MINUTE_MS),
        ...money(ZERO),
      })),
    ]),
  );
  const rows =
    byBucket ??
    sumSpend(db, segments, column, {
      keyId: q.key_id,
      groups: page.map((t) => t.g),
      bucketMinutes: size,
    });
  for (const r of rows) {
    const list = buckets.get(r.g);
    if (list) list[r.b! - firstBucket] = { start_time: list[r.b! - firstBucket].start_time, ...money(r) };
  }
  // ranked by cost alone, a key's other sums are its buckets'
  const pageTotals = byBucket ? null : new Map(totalsOf(rows).map((t) => [t.g, t]));
  const last = page.at(-1);
  return {
    currency: o.currency,
    start_time: iso(segments[0].from * MINUTE_MS),
    end_time: iso(segments[0].to * MINUTE_MS),
    bucket: q.bucket,
    group_by: q.group_by,
    data: page.map((t) => ({
      group: t.g,
      name: o.nameOf(t.g),
      ...money(pageTotals ? (pageTotals.get(t.g) ?? { ...ZERO, cost_nanos: t.cost_nanos }) : t),
      buckets: buckets.get(t.g)!,
    })),
    next_cursor: hasMore && last ? encodeCursor({ c: last.cost_nanos, g: last.g }) : null,
    has_more: hasMore,
  };
}

/** Each group's sums over its buckets. */
function totalsOf(rows: (SpendSums & { g: string })[]): (SpendSums & { g: string })[] {
  const byGroup = new Map<string, SpendSums & { g: string }>();
  for (const r of rows) {
    const t = byGroup.get(r.g) ?? { g: r.g, ...ZERO };
    t.requests += r.requests;
    t.input_tokens += r.input_tokens;
    t.output_tokens += r.output_tokens;
    t.cost_nanos += r.cost_nanos;
    t.unpriced_requests += r.unpriced_requests;
    byGroup.set(r.g, t);
  }
  return [...byGroup.values()];
}

const ZERO: SpendSums = { requests: 0, input_tokens: 0, output_tokens: 0, cost_nanos: 0, unpriced_requests: 0 };

/** Sums as the API gives them: the cost in currency units. */
const money = (s: SpendSums) => ({
  requests: s.requests,
  input_tokens: s.input_tokens,
  output_tokens: s.output_tokens,
  cost: amountOfNanos(s.cost_nanos),
  unpriced_requests: s.unpriced_requests,
});
