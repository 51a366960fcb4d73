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
import { usageKeysOf } from './keys.js';
import { REJECTION_COLUMNS } from './rejection-columns.js';
import { sumSpend } from './spend-summary.js';
import { GRAIN_MINUTES, segments } from './time-segments.js';
import { USAGE_COLUMNS, usageSource } from './usage-rollup.js';

const MINUTE_MS = 60_000;
const DEFAULT_RANGE_MS = 24 * 3600_000;
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
 * Whole days and hours are read from their own rows (usage_rollup, usage_spend), only the range's
 * ragged ends from minutes. Cost comes from the spend kept beside the usage, over the same
 * segments; a call with usage but no spend (metered before costs were kept) counts as unpriced.
 * Each key comes with its name, status and quota as they are now, and a key refused in the range with
 * its refusals since its quota changed (one query for the answer's keys).
 */
export function queryUsage(db: Db, q: UsageRequest, nowMs: number, currency: string | null): Usage {
  const { startMs, endMs, size, fromMinute, toMinute, firstBucket, bucketCount } = usageRange(q, nowMs);

  const keyFilter = q.key_id !== undefined ? 'AND key_id = @key_id' : '';
  // whole days and hours from their own rows; a range past the current minute has nothing after
  // its end, so its last hour or day is read whole
  const parts = segments(fromMinute, toMinute, q.bucket, toMinute > Math.floor(nowMs / MINUTE_MS));
  const source = usageSource(parts, keyFilter);
  const byKey = q.key_id !== undefined ? { key_id: q.key_id } : {};
  const params = { ...source.params, ...byKey };
  // One pass, rows as arrays rather than objects (a week of a busy gateway is thousands of keys
  // times its buckets): each key's counts by bucket; its totals are its buckets added up. Size is
  // inlined: a bound JS number arrives as REAL, and minute / 60.0 is not a bucket number.
  const rows = db
    .prepare(
      `SELECT key_id, m / ${size} AS b, ${USAGE_COLUMNS.map((c) => `SUM(${c})`).join(', ')}
    FROM (${source.sql})
    GROUP BY key_id, b`,
    )
    .raw()
    .all(params) as [string, number, ...number[]][];
  if (rows.length === 0)
    return { start_time: iso(startMs), end_time: iso(endMs), bucket: q.bucket, currency, data: [] };

  const starts = Array.from({ length: bucketCount }, (_, i) => iso((firstBucket + i) * size * MINUTE_MS));
  const at = (name: (typeof USAGE_COLUMNS)[number]) => 2 + USAGE_COLUMNS.indexOf(name);
  const [REQ, REJ, IN, OUT] = [at('requests'), at('rejected'), at('input_tokens'), at('output_tokens')];
  const keys = new Map<string, { sums: number[]; buckets: KeyUsage['buckets']; costNanos: number }>();
  for (const r of rows) {
    let k = keys.get(r[0]);
    if (!k) {
      k = {
        sums: USAGE_COLUMNS.map(() => 0),
        buckets: starts.map((start_time) => ({
          start_time,
          requests: 0,
          rejected: 0,
          input_tokens: 0,
          output_tokens: 0,
          cost: 0,
          unpriced_requests: 0,
        })),
        costNanos: 0,
      };
      keys.set(r[0], k);
    }
    for (let c = 0; c < USAGE_COLUMNS.length; c++) k.sums[c] += r[2 + c] as number;
    const slot = k.buckets[r[1] - firstBucket];
    if (slot) {
      slot.requests += r[REQ] as number;
      slot.rejected = (slot.rejected ?? 0) + (r[REJ] as number);
      slot.input_tokens += r[IN] as number;
      slot.output_tokens += r[OUT] as number;
      // calls metered before costs were kept have no spend row: their cost is not known
      slot.unpriced_requests = slot.requests;
    }
  }
  // the spend of the same segments, by key and bucket
  for (const c of sumSpend(db, parts, 'key_id', { keyId: q.key_id, bucketMinutes: size })) {
    const k = keys.get(c.g);
    const slot = k?.buckets[c.b! - firstBucket];
    if (!k || !slot) continue;
    slot.cost = amountOfNanos(c.cost_nanos);
    slot.unpriced_requests = Math.max(0, slot.requests - c.requests) + c.unpriced_requests;
    k.costNanos += c.cost_nanos;
  }
  const sum = (k: { sums: number[] }, name: (typeof USAGE_COLUMNS)[number]) => k.sums[at(name) - 2];
  const totals = [...keys].sort(
    ([a, x], [b, y]) => sum(y, 'requests') - sum(x, 'requests') || (a < b ? -1 : a > b ? 1 : 0),
  );
  const keyOf = usageKeysOf(
    db,
    totals.map(([keyId]) => keyId),
    new Set(totals.flatMap(([keyId, k]) => (sum(k, 'rejected') > 0 ? [keyId] : []))),
  );
  const refused = refusedWorkloads(db, keyFilter, { from: fromMinute, to: toMinute, ...byKey });
  return {
    start_time: iso(startMs),
    end_time: iso(endMs),
    bucket: q.bucket,
    currency,
    data: totals.map(([keyId, k]) => ({
      key_id: keyId,
      key: keyOf.get(keyId) ?? null,
      requests: sum(k, 'requests'),
      rejected: sum(k, 'rejected'),
      rejected_by: Object.fromEntries(
        REJECTION_CAUSES.map((c) => [c, sum(k, REJECTION_COLUMNS[c] as (typeof USAGE_COLUMNS)[number])]),
      ) as RejectedBy,
      rejected_workloads: refused.get(keyId) ?? [],
      input_tokens: sum(k, 'input_tokens'),
      output_tokens: sum(k, 'output_tokens'),
      cost: amountOfNanos(k.costNanos),
      unpriced_requests: k.buckets.reduce((n, b) => n + b.unpriced_requests, 0),
      buckets: k.buckets,
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

  const size = GRAIN_MINUTES[q.bucket];
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
