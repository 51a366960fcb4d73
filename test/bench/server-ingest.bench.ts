import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueToken, startServer } from './lib/cli-server.js';
import { loadAverage, median, nowMs, percentile } from './lib/stats.js';
import { latencySummary, pollAdmin } from './lib/admin-poll.js';
import type { BenchContext, Figure } from './lib/types.js';
import { writeSqliteSource } from '../helpers/sqlite-source.js';
import { readSqlite } from '../../src/server/ingest/sources.js';

/**
 * Issue 26, point 11: the built server (`serve --config`) ingesting a 5,000,000-row SQLite source
 * again and again, each job as soon as the last ended, while one client GETs /connectors every
 * 10 ms (or as soon as the last answered). The baseline is the same GETs with no ingestion, in the same run. For information: how
 * long one read of that source takes on a thread of its own, which is how long each job held
 * every request when it ran on the event loop.
 */
export const name = 'server-ingest';

const ROWS = 5_000_000;
const GET_EVERY_MS = 10;
/** src/server/ingest/runner.ts: a source is counted up to this many rows */
const MAX_ENTRIES = 100_000;

/** Ingests the source job after job until `stop` says so; the jobs' items and durations. */
async function ingestLoop(url: string, token: string, stop: () => boolean): Promise<{ items: number[]; ms: number[] }> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const items: number[] = [];
  const ms: number[] = [];
  while (!stop()) {
    const t0 = nowMs();
    const res = await fetch(`${url}/v1/admin/connectors`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ connector_id: 'conn_big', source_id: 'src_big' }),
    });
    if (res.status !== 202) throw new Error(`POST /connectors: ${res.status} ${await res.text()}`);
    const { job_id } = (await res.json()) as { job_id: string };
    for (;;) {
      await new Promise((r) => setTimeout(r, 20));
      const job = (await (await fetch(`${url}/v1/admin/jobs/${job_id}`, { headers })).json()) as {
        state: string;
        items: number;
        error: string | null;
      };
      if (job.state === 'failed') throw new Error(`ingestion failed: ${job.error}`);
      if (job.state === 'succeeded') {
        items.push(job.items);
        ms.push(nowMs() - t0);
        break;
      }
    }
  }
  return { items, ms };
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const durationMs = ctx.quick ? 5_000 : 30_000;
  const dir = join(ctx.outDir, `work-${name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    const source = join(dir, 'orders.sqlite');
    let t0 = nowMs();
    writeSqliteSource(source, ROWS);
    ctx.log(`${ROWS.toLocaleString('en')}-row source written in ${((nowMs() - t0) / 1000).toFixed(1)} s`);

    const onThread: number[] = [];
    for (let i = 0; i < 5; i++) {
      t0 = nowMs();
      await readSqlite(source, { maxEntries: MAX_ENTRIES, signal: new AbortController().signal });
      onThread.push(nowMs() - t0);
    }

    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        connectors: [
          {
            id: 'conn_big',
            name: 'Big database',
            kind: 'relational-database',
            sources: [{ id: 'src_big', name: 'Orders', type: 'sqlite', path: source }],
          },
        ],
      }),
    );
    const dataDir = join(dir, 'data');
    const token = issueToken(dataDir, 'it_admin', 'bench-ingest');
    const server = await startServer(dataDir, ['--config', config]);
    try {
      await pollAdmin(server.url, token, 2_000, GET_EVERY_MS); // warm-up: a fresh server compiles its routes
      const idle = await pollAdmin(server.url, token, durationMs, GET_EVERY_MS);
      ctx.log(`idle: ${latencySummary(idle)}; load average ${loadAverage()}`);
      let done = false;
      const [busy, jobs] = await Promise.all([
        pollAdmin(server.url, token, durationMs, GET_EVERY_MS).finally(() => {
          done = true;
        }),
        ingestLoop(server.url, token, () => done),
      ]);
      ctx.log(`ingesting: ${latencySummary(busy)}; ${jobs.ms.length} jobs; load average ${loadAverage()}`);
      return [
        {
          label: `admin GET p99 while a ${ROWS.toLocaleString('en')}-row SQLite source is ingested job after job, one GET every ${GET_EVERY_MS} ms, ${durationMs / 1000} s`,
          value: percentile(busy, 99),
          unit: 'ms',
          baseline: { label: 'the same GETs, no ingestion', value: percentile(idle, 99) },
          target: { max: 50 },
          note: `${latencySummary(busy)}; baseline ${latencySummary(idle)}; load average ${loadAverage()}`,
        },
        {
          label: 'ingestion jobs completed in that time',
          value: jobs.ms.length,
          unit: 'count',
          target: { min: 1 },
          note: `items ${[...new Set(jobs.items)].join(', ')} (the limit is ${MAX_ENTRIES.toLocaleString('en')} rows); job p50 ${median(jobs.ms).toFixed(0)} ms from POST to seeing it end`,
        },
        {
          label: 'one read of that source on a thread of its own (how long each job held the event loop before)',
          value: median(onThread),
          unit: 'ms',
          note: `5 reads: ${onThread.map((x) => x.toFixed(1)).join(', ')} ms`,
        },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
