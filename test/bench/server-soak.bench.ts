import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'undici';
import { issueToken, processRss, startServer } from './lib/cli-server.js';
import { loadAverage, MB, median, nowMs, percentile } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';
import { Mishaps, slowClients } from './lib/slow-clients.js';
import { createKeys, DASHBOARDS, GATEWAY_RATE, idle, load, PATHS, POLL_MS, WORKLOADS } from './server-load.bench.js';

/**
 * Issue 26, point 12: `serve --demo` (the built CLI) for 10 minutes under server-load's mix (50
 * dashboards polling every 2 s, 200 gateway calls a second, from lib/load-gen.mjs in its own
 * process), plus 50 slow clients that trickle their headers a byte every 2 s and reconnect each
 * time the server cuts them off, an ingestion job every 3 s (the demo's local sources in turn,
 * each followed to its end) and an audit or journal export every 20 s. The server's RSS is read
 * from /proc every 2 s. BENCH_SOAK_SECONDS=N sets another length; --quick runs 45 s.
 */
export const name = 'server-soak';

const SLOW_CLIENTS = 50;
const TRICKLE_MS = 2000;
const INGEST_EVERY_MS = 3000;
const EXPORT_EVERY_MS = 20_000;
const RSS_EVERY_MS = 2000;
/** the demo's sources that ingest (its cloud CRM fails by design: no driver) */
const SOURCES = [
  ['conn_hr_share', 'src_hr_policies'],
  ['conn_eng_share', 'src_eng_runbooks'],
  ['conn_eng_share', 'src_eng_all'],
  ['conn_office_export', 'src_office_docs'],
  ['conn_crm_export', 'src_crm_files'],
  ['conn_ledger_export', 'src_ledger_files'],
  ['conn_ops_db', 'src_ops_sqlite'],
] as const;
const EXPORTS = ['/v1/admin/audit/export?format=csv', '/v1/admin/agent/journal/export?format=jsonl'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** An ingestion job every INGEST_EVERY_MS, each followed until it ends; ms each took. */
async function ingestion(client: Client, token: string, until: number, side: Mishaps): Promise<number[]> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const took: number[] = [];
  for (let k = 0; nowMs() < until; k++) {
    const t0 = nowMs();
    const [connector_id, source_id] = SOURCES[k % SOURCES.length];
    const res = await client.request({
      method: 'POST',
      path: '/v1/admin/connectors',
      headers,
      body: JSON.stringify({ connector_id, source_id }),
    });
    const posted = (await res.body.json()) as { job_id?: string };
    if (res.statusCode !== 202 || !posted.job_id) side.note(`ingest ${source_id}: ${res.statusCode}`);
    else {
      for (;;) {
        await sleep(50);
        const r = await client.request({ method: 'GET', path: `/v1/admin/jobs/${posted.job_id}`, headers });
        const job = (await r.body.json()) as { state: string; error: string | null };
        if (job.state === 'succeeded') break;
        if (job.state === 'failed' || r.statusCode !== 200) {
          side.note(`job ${source_id}: ${r.statusCode} ${job.state} ${job.error}`);
          break;
        }
      }
      took.push(nowMs() - t0);
    }
    await sleep(t0 + INGEST_EVERY_MS - nowMs());
  }
  return took;
}

/** An export every EXPORT_EVERY_MS, streamed to nowhere; the bytes of each. */
async function exports(client: Client, token: string, until: number, side: Mishaps): Promise<number[]> {
  const sizes: number[] = [];
  for (let k = 0; nowMs() < until; k++) {
    const t0 = nowMs();
    const path = EXPORTS[k % EXPORTS.length];
    const res = await client.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Buffer).length;
    if (res.statusCode !== 200) side.note(`export ${path}: ${res.statusCode}`);
    else sizes.push(bytes);
    await sleep(t0 + EXPORT_EVERY_MS - nowMs());
  }
  return sizes;
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const durationMs = (Number(process.env.BENCH_SOAK_SECONDS) || (ctx.quick ? 45 : 600)) * 1000;
  // RSS growth counts from the end of the first minute (a quarter of a shorter run)
  const warmupMs = Math.min(60_000, durationMs / 4);
  const dataDir = join(ctx.outDir, `work-${name}`);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const token = issueToken(dataDir, 'it_admin', 'bench-soak');
  const server = await startServer(dataDir, ['--demo']);
  const side = new Mishaps();
  const rss: { at: number; total: number; anon: number }[] = [];
  const client = new Client(server.url);
  try {
    const keys = await createKeys(server.url, token, 4);
    const base = await idle(server.url, token, keys[0], ctx.quick ? 150 : 600);
    ctx.log(
      `idle: admin GET p99 ${percentile(base.admin, 99).toFixed(2)} ms; load average ${loadAverage()}; ${durationMs / 1000} s soak starts`,
    );

    const start = nowMs();
    const until = start + durationMs;
    const sampler = setInterval(() => rss.push({ at: nowMs() - start, ...processRss(server.pid) }), RSS_EVERY_MS);
    const port = Number(new URL(server.url).port);
    const exportClient = new Client(server.url);
    const [r, cutOffMs, jobs, sizes] = await Promise.all([
      load({
        url: server.url,
        adminToken: token,
        gatewayKeys: keys,
        workloads: WORKLOADS,
        paths: PATHS,
        dashboards: DASHBOARDS,
        pollMs: POLL_MS,
        rate: GATEWAY_RATE,
        gatewayConnections: 16,
        durationMs,
        warmupMs: Math.min(5_000, warmupMs),
      }),
      slowClients(port, SLOW_CLIENTS, TRICKLE_MS, until, side),
      ingestion(client, token, until, side),
      exports(exportClient, token, until, side).finally(() => exportClient.close()),
    ]);
    clearInterval(sampler);
    const load1 = loadAverage();
    ctx.log(
      `soak: ${JSON.stringify({ admin: r.admin, byPath: r.adminByPath, status: r.status, errors: r.errors.slice(0, 5), side: side.first.slice(0, 5) })}`,
    );

    const after = rss.filter((x) => x.at >= warmupMs);
    const from = after.slice(0, 5);
    const to = after.slice(-5);
    const growth = (k: 'total' | 'anon') => (median(to.map((x) => x[k])) - median(from.map((x) => x[k]))) / MB;
    const window = `${(durationMs / 1000).toFixed(0)} s`;
    return [
      {
        label: `admin GET p99, server-load's mix + ${SLOW_CLIENTS} slow clients + ingestion every ${INGEST_EVERY_MS / 1000} s + an export every ${EXPORT_EVERY_MS / 1000} s, ${window}`,
        value: r.admin.p99,
        unit: 'ms',
        baseline: { label: 'idle server, one request at a time', value: percentile(base.admin, 99) },
        target: { max: 50 },
        note: `${r.admin.count} GETs, p50 ${r.admin.p50.toFixed(2)}, max ${r.admin.max.toFixed(1)} ms; load average after ${load1}`,
      },
      ...Object.entries(r.adminByPath).map(([path, x]) => ({
        label: `  GET ${path.replace('/v1/admin', '')} p99`,
        value: x.p99,
        unit: 'ms',
        target: { max: 50 },
        note: `${x.count} GETs, p50 ${x.p50.toFixed(2)}, max ${x.max.toFixed(1)} ms`,
      })),
      {
        label:
          'errors (load: transport, answers other than 200/304; jobs failed; exports not 200; slow clients closed without 408)',
        value: r.errorCount + side.count,
        unit: 'count',
        target: { max: 0 },
        note: `statuses ${JSON.stringify(r.status)}${[...r.errors, ...side.first].length ? `; first: ${[...r.errors, ...side.first].slice(0, 3).join('; ')}` : ''}`,
      },
      {
        label: `server RSS growth after the first ${(warmupMs / 1000).toFixed(0)} s`,
        value: growth('total'),
        unit: 'MB',
        target: { max: 20 },
        note: `median of 5 samples each end: ${(median(from.map((x) => x.total)) / MB).toFixed(0)} -> ${(median(to.map((x) => x.total)) / MB).toFixed(0)} MB; anonymous ${growth('anon').toFixed(1)} MB; peak ${(Math.max(...rss.map((x) => x.total)) / MB).toFixed(0)} MB`,
      },
      {
        label: 'slow clients cut off with 408',
        value: cutOffMs.length,
        unit: 'count',
        target: { min: 1 },
        note: `after p50 ${median(cutOffMs).toFixed(0)} ms, max ${Math.max(...cutOffMs).toFixed(0)} ms from connecting`,
      },
      {
        label: 'ingestion jobs and exports completed',
        value: jobs.length + sizes.length,
        unit: 'count',
        target: { min: 2 },
        note: `${jobs.length} jobs (p50 ${median(jobs).toFixed(0)} ms from POST to seeing the end), ${sizes.length} exports (${(median(sizes) / 1024).toFixed(0)} KiB at the median)`,
      },
    ];
  } finally {
    await client.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
