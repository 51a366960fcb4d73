import type { Db } from '../db/sqlite-driver.js';
import { badRequest } from '../errors.js';
import { iso } from '../ids.js';
import {
  amountOfNanos,
  MAX_REJECTED_WORKLOADS,
  REJECTION_CAUSES,
  USAGE_MAX_RANGE_HOURS,
  type KeyUsage,
  type RejectedBy,
  type Usage,
  type UsageBucketSize,
} from '../../contract/index.js';
import { REJECTION_COLUMNS } from './metering.js';
import { spendSegments, sumSpend } from './spend-summary.js';

const MINUTE_MS = 60_000;
const DEFAULT_RANGE_MS = 24 * 3600_000;
const BUCKET_MINUTES: Record<UsageBucketSize, number> = { minute: 1, hour: 60, day: 1440 };
/** Every bucket in range is returned (zeros included, for sparklines); this caps the answer. */
const MAX_BUCKETS = 1000;
const HOUR_MS = 3600_000;

export interface UsageRequest {
  start_time?: string;
  end_time?: string;
  key_id?: string;
  bucket: UsageBucketSize;
}

/**
 * Usage per key over [start, end). Usage is metered per minute: a call counts at the start of its
 * minute, so a minute row counts when its minute starts inside the range (a range on whole
 * minutes is exact). Without end_time the range ends with the current minute, so an idle appliance
 * gives the same answer, and ETag, for a minute. Buckets are aligned to UTC hours or days, so the
 * first one may start before start_time; every bucket that overlaps the range is listed, empty
 * ones with zeros. Keys with no rows in the range are left out: an empty `data` means no traffic.
 * Cost comes from the spend kept beside the usage (spend-summary.ts), over the same minutes; a call
 * with usage but no spend (metered before costs were kept) counts as unpriced.
 */
export function queryUsage(db: Db, q: UsageRequest, nowMs: number, currency: string | null): Usage {
  const { startMs, endMs, size, fromMinute, toMinute, firstBucket, bucketCount } = usageRange(q, nowMs);

  const keyFilter = q.key_id !== undefined ? 'AND key_id = @key_id' : '';
  const params = { from: fromMinute, to: toMinute, ...(q.key_id !== undefined ? { key_id: q.key_id } : {}) };
  const totals = db
    .prepare(
      `SELECT key_id, SUM(requests) AS requests, SUM(rejected) AS rejected,
      SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
      ${REJECTION_CAUSES.map((c) => `SUM(${REJECTION_COLUMNS[c]}) AS ${c}`).join(', ')}
    FROM usage_minutes WHERE minute >= @from AND minute < @to ${keyFilter}
    GROUP BY key_id ORDER BY requests DESC, key_id`,
    )
    .all(params) as (Omit<KeyUsage, 'buckets' | 'rejected_by'> & RejectedBy)[];
  if (totals.length === 0)
    return { start_time: iso(startMs), end_time: iso(endMs), bucket: q.bucket, currency, data: [] };

  // size is inlined: a bound JS number arrives as REAL, and minute / 60.0 is not a bucket number
  const perBucket = db
    .prepare(
      `SELECT key_id, minute / ${size} AS b, SUM(requests) AS requests, SUM(rejected) AS rejected,
      SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens
    FROM usage_minutes WHERE minute >= @from AND minute < @to ${keyFilter}
    GROUP BY key_id, b`,
    )
    .all(params) as {
    key_id: string;
    b: number;
    requests: number;
    rejected: number;
    input_tokens: number;
    output_tokens: number;
  }[];

  const series = new Map(
    totals.map((t) => [
      t.key_id,
      Array.from({ length: bucketCount }, (_, i) => ({
        start_time: iso((firstBucket + i) * size * MINUTE_MS),
        requests: 0,
        rejected: 0,
        input_tokens: 0,
        output_tokens: 0,
        cost: 0,
        unpriced_requests: 0,
      })),
    ]),
  );
  for (const r of perBucket) {
    const slot = series.get(r.key_id)![r.b - firstBucket];
    slot.requests = r.requests;
    slot.rejected = r.rejected;
    slot.input_tokens = r.input_tokens;
    slot.output_tokens = r.output_tokens;
    // calls metered before costs were kept have no spend row: their cost is not known
    slot.unpriced_requests = r.requests;
  }
  const costNanos = new Map<string, number>();
  for (const c of sumSpend(db, spendSegments(fromMinute, toMinute, q.bucket), 'key_id', {
    keyId: q.key_id,
    bucketMinutes: size,
  })) {
    const slot = series.get(c.g)?.[c.b! - firstBucket];
    if (!slot) continue;
    slot.cost = amountOfNanos(c.cost_nanos);
    slot.unpriced_requests = Math.max(0, slot.requests - c.requests) + c.unpriced_requests;
    costNanos.set(c.g, (costNanos.get(c.g) ?? 0) + c.cost_nanos);
  }
  const refused = refusedWorkloads(db, keyFilter, params);
  return {
    start_time: iso(startMs),
    end_time: iso(endMs),
    bucket: q.bucket,
    currency,
    data: totals.map((t) => ({
      key_id: t.key_id,
      requests: t.requests,
      rejected: t.rejected,
      rejected_by: Object.fromEntries(REJECTION_CAUSES.map((c) => [c, t[c]])) as RejectedBy,
      rejected_workloads: refused.get(t.key_id) ?? [],
      input_tokens: t.input_tokens,
      output_tokens: t.output_tokens,
      cost: amountOfNanos(costNanos.get(t.key_id) ?? 0),
      unpriced_requests: series.get(t.key_id)!.reduce((n, b) => n + b.unpriced_requests, 0),
      buckets: series.get(t.key_id)!,
    })),
  };
}

/** A usage or spend query's range, checked against its bucket size's limits, and its buckets. */
export interface UsageRange {
  startMs: number;
  endMs: number;
  /** minutes per bucket */
  size: number;
  fromMinute: number;
  /** exclusive */
  toMinute: number;
  /** the first bucket's number since the epoch, in buckets of `size` minutes */
  firstBucket: number;
  bucketCount: number;
}

/**
 * The range [start, end) a query asks for (end: the end of the current minute; start: a day before
 * end), refused (400) when longer than its bucket size allows.
 */
export function usageRange(
  q: { start_time?: string; end_time?: string; bucket: UsageBucketSize },
  nowMs: number,
): UsageRange {
  const endMs =
    q.end_time !== undefined ? Date.parse(q.end_time) : Math.floor(nowMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const startMs = q.start_time !== undefined ? Date.parse(q.start_time) : endMs - DEFAULT_RANGE_MS;
  if (endMs <= startMs) {
    throw badRequest('end_time must be after start_time (end_time defaults to the end of the current minute)', [
      { name: 'end_time', reason: 'must be after start_time' },
    ]);
  }

  // minute buckets are for watching the last hours: a longer range is refused before any read
  const maxHours = USAGE_MAX_RANGE_HOURS[q.bucket];
  if (endMs - startMs > maxHours * HOUR_MS) {
    const hours = Math.ceil((endMs - startMs) / HOUR_MS);
    throw badRequest(`bucket=${q.bucket} covers at most ${maxHours} hours; the range spans ${hours}`, [
      {
        name: 'start_time',
        reason: `range too long for bucket=${q.bucket} (at most ${maxHours} h); narrow it or use a larger bucket`,
      },
    ]);
  }

  const size = BUCKET_MINUTES[q.bucket];
  const fromMinute = Math.ceil(startMs / MINUTE_MS);
  const toMinute = Math.ceil(endMs / MINUTE_MS); // exclusive
  // the buckets the range overlaps, by time: a range starting in an hour's last minute still
  // lists that hour, so a rolling 24 h always has 25 hourly buckets (24 when on the hour)
  const firstBucket = Math.floor(startMs / (size * MINUTE_MS));
  const lastBucket = Math.floor((endMs - 1) / (size * MINUTE_MS));
  const bucketCount = lastBucket - firstBucket + 1;
  if (q.bucket !== 'minute' && bucketCount > MAX_BUCKETS) {
    throw badRequest(`the range spans ${bucketCount} ${q.bucket} buckets; at most ${MAX_BUCKETS}`, [
      {
        name: 'start_time',
        reason: `range too long for bucket=${q.bucket} (max ${MAX_BUCKETS} buckets); narrow it or use bucket=day`,
      },
    ]);
  }
  return { startMs, endMs, size, fromMinute, toMinute, firstBucket, bucketCount };
}

/** The unknown workload names each key asked for in the range, most refused first. */
function refusedWorkloads(
  db: Db,
  keyFilter: string,
  params: Record<string, unknown>,
): Map<string, KeyUsage['rejected_workloads']> {
  const rows = db
    .prepare(
      `SELECT key_id, workload, SUM(rejected) AS rejected FROM usage_workload_rejections
    WHERE minute >= @from AND minute < @to ${keyFilter}
    GROUP BY key_id, workload ORDER BY key_id, rejected DESC, workload`,
    )
    .all(params) as { key_id: string; workload: string; rejected: number }[];
  const byKey = new Map<string, KeyUsage['rejected_workloads']>();
  for (const r of rows) {
    const list = byKey.get(r.key_id) ?? [];
    if (list.length < MAX_REJECTED_WORKLOADS) list.push({ workload: r.workload, rejected: r.rejected });
    byKey.set(r.key_id, list);
  }
  return byKey;
}
