import { readFileSync } from 'node:fs';

/** Percentiles, timing and memory readings for benchmarks. */

/** Nearest-rank percentile (p in 0..100) of the samples; sorts a copy. */
export function percentile(samples: ArrayLike<number>, p: number): number {
  const sorted = Float64Array.from(samples).sort();
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export const median = (samples: ArrayLike<number>) => percentile(samples, 50);

/** Milliseconds since an arbitrary start, sub-microsecond resolution. */
export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

export const MB = 1024 * 1024;

/**
 * Resident set size and its anonymous part in bytes. The anonymous part leaves out file pages,
 * e.g. database pages SQLite reads through mmap, which the kernel can drop at any time.
 */
export function rss(): { total: number; anon: number } {
  const total = process.memoryUsage.rss();
  const anon = /RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return { total, anon: anon ? Number(anon[1]) * 1024 : total };
}

/** e.g. '1.20 0.95 0.80' */
export const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
