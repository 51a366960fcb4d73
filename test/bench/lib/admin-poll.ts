import { Client } from 'undici';
import { median, nowMs, percentile } from './stats.js';

/**
 * One client GETting `path` every everyMs for durationMs (a GET that is late starts at once, the
 * next on schedule), each timed from its send, as server-load times the dashboards' GETs.
 */
export async function pollAdmin(
  url: string,
  token: string,
  durationMs: number,
  everyMs = 10,
  path = '/v1/admin/connectors',
): Promise<number[]> {
  const client = new Client(url);
  const ms: number[] = [];
  const start = nowMs();
  try {
    for (let k = 0; ; k++) {
      const due = start + k * everyMs;
      if (due >= start + durationMs) break;
      if (due < nowMs() - everyMs) continue;
      if (due > nowMs()) await new Promise((r) => setTimeout(r, due - nowMs()));
      const t0 = nowMs();
      const res = await client.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
      ms.push(nowMs() - t0);
    }
  } finally {
    await client.close();
  }
  return ms;
}

export const latencySummary = (ms: number[]) =>
  `${ms.length} GETs, p50 ${median(ms).toFixed(2)}, p99 ${percentile(ms, 99).toFixed(2)}, max ${Math.max(...ms).toFixed(1)} ms`;
