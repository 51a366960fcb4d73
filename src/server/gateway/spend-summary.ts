import type { Db } from '../db/sqlite-driver.js';
import type { Segment } from './time-segments.js';

/** A sum of spend rows. */
export interface SpendSums {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost_nanos: number;
  unpriced_requests: number;
}

const SUMS = `SUM(requests) AS requests, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
  SUM(cost_nanos) AS cost_nanos, SUM(unpriced_requests) AS unpriced_requests`;

/**
 * Only the cost, the rest zero: what ranks groups by cost. The rows SQLite sorts to group them are
 * then the group and one sum, not six columns, which matters when they are the days of every key.
 */
const COST_ONLY = `0 AS requests, 0 AS input_tokens, 0 AS output_tokens, SUM(cost_nanos) AS cost_nanos,
  0 AS unpriced_requests`;

export type SpendColumn = 'key_id' | 'model_id' | 'workload';

/**
 * Spend over the segments summed by `column`, optionally only for one key (`keyId`) or only for some
 * groups (`groups`); with `bucketMinutes`, also by bucket of that many minutes (`b`: the bucket's
 * number since the epoch). Each segment is summed where it is read (each reads the (grain,
 * start_minute) index), then the segments' sums are added: no rows are copied into a sub-select.
 */
export function sumSpend(
  db: Db,
  segments: Segment[],
  column: SpendColumn,
  o: { keyId?: string; groups?: string[]; bucketMinutes?: number; costOnly?: boolean } = {},
): (SpendSums & { g: string; b: number | null })[] {
  if (!segments.length) return [];
  let filters = '';
  const filterParams: unknown[] = [];
  if (o.keyId !== undefined) {
    filters += ' AND key_id = ?';
    filterParams.push(o.keyId);
  }
  if (o.groups !== undefined) {
    if (!o.groups.length) return [];
    filters += ` AND ${column} IN (${o.groups.map(() => '?').join(', ')})`;
    filterParams.push(...o.groups);
  }
  // `+column`: grouping by the bare column lets SQLite walk usage_spend_key for its order, a lookup
  // of each row in the table; the range read in place from the primary key and sorted is cheaper.
  // The bucket size is inlined: a bound JS number arrives as REAL, and start_minute / 60.0 is not a bucket number
  const bucket = o.bucketMinutes !== undefined ? `start_minute / ${Math.floor(o.bucketMinutes)}` : 'NULL';
  // a few keys' rows are found by key; SQLite otherwise reads the whole range for them
  const byKey = o.keyId !== undefined || (o.groups !== undefined && column === 'key_id');
  const params: unknown[] = [];
  const parts = segments.map((g) => {
    params.push(g.grain, g.from, g.to, ...filterParams);
    return `SELECT ${column} AS g, ${bucket} AS b, ${o.costOnly ? COST_ONLY : SUMS} FROM usage_spend${byKey ? ' INDEXED BY usage_spend_key' : ''}
      WHERE grain = ? AND start_minute >= ? AND start_minute < ?${filters} GROUP BY +${column}, b`;
  });
  const sql = parts.length === 1 ? parts[0] : `SELECT g, b, ${SUMS} FROM (${parts.join(' UNION ALL ')}) GROUP BY g, b`;
  return db.prepare(sql).all(...params) as (SpendSums & { g: string; b: number | null })[];
}
