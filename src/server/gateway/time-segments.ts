import type { UsageBucketSize } from '../../contract/index.js';

/** Minutes per bucket of each grain the gateway keeps usage and spend at (UTC-aligned). */
export const GRAIN_MINUTES: Record<UsageBucketSize, number> = { minute: 1, hour: 60, day: 1440 };

/** A run of whole buckets of one grain: start minutes in [from, to). */
export interface Segment {
  grain: UsageBucketSize;
  /** epoch minutes, [from, to) */
  from: number;
  to: number;
}

/**
 * [from, to) in the fewest rows: whole days, whole hours, then minutes, no grain larger than
 * `largest` (a bucket is never split), so that sums over them are the minutes' sums and a month
 * reads its days, not forty thousand minutes. `open`: nothing is counted after `to` (it is past
 * the current minute), so the last hour or day may be read whole though the range ends inside it.
 * Usage (usage_minutes and usage_rollup) and spend (usage_spend) are both read this way.
 */
export function segments(from: number, to: number, largest: UsageBucketSize, open: boolean): Segment[] {
  const grains = (['day', 'hour', 'minute'] as const).filter((g) => GRAIN_MINUTES[g] <= GRAIN_MINUTES[largest]);
  const out: Segment[] = [];
  const split = (a: number, b: number, i: number, openEnd: boolean) => {
    if (a >= b) return;
    const grain = grains[i];
    const size = GRAIN_MINUTES[grain];
    if (size === 1) {
      out.push({ grain, from: a, to: b });
      return;
    }
    const first = Math.ceil(a / size) * size;
    const last = (openEnd ? Math.ceil(b / size) : Math.floor(b / size)) * size;
    if (first >= last) return split(a, b, i + 1, openEnd);
    split(a, first, i + 1, false);
    out.push({ grain, from: first, to: last });
    if (last < b) split(last, b, i + 1, false);
  };
  split(from, to, 0, open);
  return out;
}
