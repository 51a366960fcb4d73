import { join } from 'node:path';
import Database from '../../src/server/db/sqlite-driver.js';
import type { Db } from '../../src/server/db/open.js';
import { DB_FILE } from '../../src/server/db/open.js';
import { SpendQuery } from '../../src/contract/index.js';
import { querySpend } from '../../src/server/gateway/spend-query.js';
import { gatewayKeyName } from '../../src/server/gateway/keys.js';
import { ensureGatewayDb, type GatewayDb } from './lib/gateway-db.js';
import { loadAverage, median, nowMs, percentile } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 41 §4 and §6: cost summaries over 30 days on a gateway with 1,000,000 keys and 10,000,000
 * usage minutes (their spend at minute, hour and day grain), through the route's own code (the
 * query parsed by the route's schema, then querySpend), by model, by workload and by key, each p99
 * beside the plain way measured in the same run: the same sums as one SQL GROUP BY over the day
 * rows of whole days. "Now" is 7 minutes before the history's end and the range starts 13 minutes
 * into an hour, as a real range does (the route widens it to whole buckets). The database is read
 * only (opened read-only: nothing writes it).
 */
export const name = 'server-spend';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

interface Case {
  label: string;
  run: () => unknown;
  target?: number;
}

function cases(db: Db, meta: GatewayDb): Case[] {
  const now = meta.toMs - 7 * MINUTE;
  const month = { start_time: iso(now - 30 * DAY + 13 * MINUTE), end_time: iso(now) };
  const day = { start_time: iso(now - DAY), end_time: iso(now) };
  const keyName = (id: string) => gatewayKeyName(db, id);
  const spend = (q: Record<string, unknown>) => () => {
    const query = SpendQuery.parse(q);
    return querySpend(db, query, now, {
      currency: 'EUR',
      nameOf: query.group_by === 'key' ? keyName : () => null,
    });
  };
  const fromDay = Math.ceil(Date.parse(month.start_time) / DAY) * 1440;
  const toDay = Math.floor(now / DAY) * 1440;
  const plain = db.prepare(`SELECT model_id, SUM(requests), SUM(cost_nanos), SUM(unpriced_requests) FROM usage_spend
    WHERE grain = 'day' AND start_minute >= ? AND start_minute < ? GROUP BY model_id`);
  return [
    {
      label: 'plain SQL: cost by model over the whole days of 30 days (day rows, one GROUP BY)',
      run: () => plain.all(fromDay, toDay),
    },
    { label: 'spend, 30 days by day, group_by=model', run: spend({ ...month, group_by: 'model' }), target: 50 },
    { label: 'spend, 30 days by day, group_by=workload', run: spend({ ...month, group_by: 'workload' }), target: 50 },
    {
      label: 'spend, 30 days by day, group_by=key (first page of 50, named)',
      run: spend({ ...month, group_by: 'key' }),
      target: 50,
    },
    {
      label: 'spend, 30 days by day, one busy key by model',
      run: spend({ ...month, group_by: 'model', key_id: meta.busyKeys[0] }),
      target: 50,
    },
    {
      label: 'spend, last 24 h by hour, group_by=model',
      run: spend({ ...day, bucket: 'hour', group_by: 'model' }),
      target: 50,
    },
  ];
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const size = ctx.quick ? { keys: 10_000, usageMinutes: 100_000 } : {};
  const meta = ensureGatewayDb(ctx.outDir, ctx.log, size);
  const db = new Database(join(meta.dir, DB_FILE), { readonly: true, fileMustExist: true });
  try {
    db.pragma('cache_size = -262144');
    ctx.log(`load average ${loadAverage()}`);
    const all = cases(db, meta);
    const iterations = ctx.quick ? 20 : 200;
    const warmup = ctx.quick ? 2 : 10;
    const samples = all.map(() => [] as number[]);
    for (let i = 0; i < warmup + iterations; i++) {
      all.forEach((c, j) => {
        const t = nowMs();
        c.run();
        if (i >= warmup) samples[j].push(nowMs() - t);
      });
    }
    const baseline = { label: 'plain SQL GROUP BY over day rows: p99', value: percentile(samples[0], 99) };
    const scale = `${meta.keys.toLocaleString('en-US')} keys, ${meta.usageMinutes.toLocaleString('en-US')} usage minutes`;
    return all.map((c, j) => ({
      label: `${c.label}: p99 (${scale})`,
      value: Math.round(percentile(samples[j], 99) * 100) / 100,
      unit: 'ms',
      ...(j > 0 ? { baseline } : {}),
      ...(c.target !== undefined ? { target: { max: c.target } } : {}),
      note: `p50 ${median(samples[j]).toFixed(2)} ms, ${iterations} calls, load ${loadAverage()}`,
    }));
  } finally {
    db.close();
  }
}
