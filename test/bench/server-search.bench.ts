import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { DB_FILE } from '../../src/server/db/open.js';
import { loadDemoConfig } from '../../src/server/demo/config.js';
import { issueToken, startServer } from './lib/cli-server.js';
import { copyAuditDb, ensureAuditDb } from './lib/audit-db.js';
import { createKeys } from './server-load.bench.js';
import { loadAverage, median, nowMs, percentile } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 37, point 1: twenty auditors search the audit trail of 1,000,000 entries at once, each
 * sending its next search as soon as the last one answered (a summary and a page of 50 in turn,
 * for a rare text `zzqN`, as the repro did), while a probe sends an admin GET (`/session`,
 * `/connectors`) and a gateway call every PROBE_MS. Figures: the probe's p99 under the searches
 * beside the same probe on the idle server, and the searches' own p99 beside the same search done
 * the plain way in the same run (the LIKE over the seven columns that searching was before the
 * trigram index, on the same database, in this process).
 */
export const name = 'server-search';

const SEARCHERS = 20;
const PROBE_MS = 25;

interface Probe {
  admin: number[];
  gateway: number[];
  statuses: Record<string, number>;
}

async function probe(pool: Pool, token: string, secret: string, untilMs: number): Promise<Probe> {
  const out: Probe = { admin: [], gateway: [], statuses: {} };
  const count = (kind: string, status: number) => {
    const k = `${kind} ${status}`;
    out.statuses[k] = (out.statuses[k] ?? 0) + 1;
  };
  const body = JSON.stringify({
    messages: [{ role: 'user', content: 'Summarise the travel policy.' }],
    max_tokens: 16,
  });
  let i = 0;
  while (nowMs() < untilMs) {
    const next = nowMs() + PROBE_MS;
    const path = i++ % 2 ? '/v1/admin/connectors' : '/v1/admin/session';
    let t0 = nowMs();
    const a = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
    await a.body.dump();
    out.admin.push(nowMs() - t0);
    count('admin', a.statusCode);
    t0 = nowMs();
    const g = await pool.request({
      method: 'POST',
      path: '/v1/gateway/summarize',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body,
    });
    await g.body.dump();
    out.gateway.push(nowMs() - t0);
    count('gateway', g.statusCode);
    const wait = next - nowMs();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return out;
}

/** One auditor searching back to back until `untilMs`: each answer's time and status. */
async function searcher(
  pool: Pool,
  token: string,
  n: number,
  untilMs: number,
  times: number[],
  statuses: Record<string, number>,
) {
  let i = 0;
  while (nowMs() < untilMs) {
    const q = `zzq${(n * 7919 + i) % 1000}`;
    const path = i++ % 2 ? `/v1/admin/audit?limit=50&q=${q}` : `/v1/admin/audit/summary?q=${q}&group_by=action`;
    const t0 = nowMs();
    const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
    await res.body.dump();
    times.push(nowMs() - t0);
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
  }
}

/** The search as it was: a LIKE over the seven columns, every row of the trail read (ms each). */
function plainSearch(dataDir: string, runs: number): number[] {
  const db = new Database(join(dataDir, DB_FILE), { readonly: true });
  const columns = ['actor_subject', 'action', 'outcome', 'target_type', 'target_id', 'target_name', 'details'];
  const st = db.prepare(
    `SELECT count(*) FROM audit WHERE ${columns.map((c) => `${c} LIKE @q ESCAPE '\\'`).join(' OR ')}`,
  );
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = nowMs();
    st.get({ q: `%zzq${i}%` });
    times.push(nowMs() - t0);
  }
  db.close();
  return times;
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const rows = ctx.quick ? 100_000 : 1_000_000;
  const seconds = ctx.quick ? 5 : 30;
  const cached = ensureAuditDb(ctx.outDir, rows, ctx.log);
  const dataDir = copyAuditDb(cached, ctx.outDir, `search-${process.pid}`);
  const admin = issueToken(dataDir, 'it_admin', 'bench-admin');
  const auditors = Array.from({ length: SEARCHERS }, (_, i) => issueToken(dataDir, 'auditor', `bench-auditor-${i}`));
  ctx.log(`server-search: ${rows} entries, ${SEARCHERS} searchers, ${seconds} s`);
  // the demo's models and workloads, so that a gateway call goes the whole way (key, quota, routing, metering)
  const config = join(dataDir, '..', `search-config-${process.pid}.json`);
  writeFileSync(config, JSON.stringify(loadDemoConfig(join(dataDir, '..', `search-files-${process.pid}`))));
  const server = await startServer(dataDir, ['--config', config]);
  const pool = new Pool(server.url, { connections: SEARCHERS + 4 });
  try {
    const [secret] = await createKeys(server.url, admin, 1);
    // warm: the server compiles its routes and statements, the page cache holds the index
    await probe(pool, admin, secret, nowMs() + 2_000);
    const idle = await probe(pool, admin, secret, nowMs() + seconds * 1000);
    const idleSearch: number[] = [];
    const idleStatuses: Record<string, number> = {};
    await searcher(pool, auditors[0], 0, nowMs() + 3_000, idleSearch, idleStatuses);

    const until = nowMs() + seconds * 1000;
    const searchTimes: number[] = [];
    const searchStatuses: Record<string, number> = {};
    const [busy] = await Promise.all([
      probe(pool, admin, secret, until),
      ...auditors.map((t, n) => searcher(pool, t, n, until, searchTimes, searchStatuses)),
    ]);
    const plain = plainSearch(dataDir, ctx.quick ? 2 : 5);
    const load = loadAverage();
    const statusNote = (s: Record<string, number>) =>
      Object.entries(s)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ');
    return [
      {
        label: `admin GET p99 during ${SEARCHERS} concurrent searches over ${rows.toLocaleString('en-US')} entries`,
        value: percentile(busy.admin, 99),
        unit: 'ms',
        baseline: { label: 'admin GET p99 on the idle server', value: percentile(idle.admin, 99) },
        target: { max: 50 },
        note: `p50 ${median(busy.admin).toFixed(2)} ms, ${busy.admin.length} probes; ${statusNote(busy.statuses)}; load ${load}`,
      },
      {
        label: `gateway call p99 during ${SEARCHERS} concurrent searches`,
        value: percentile(busy.gateway, 99),
        unit: 'ms',
        baseline: { label: 'gateway call p99 on the idle server', value: percentile(idle.gateway, 99) },
        target: { max: 50 },
        note: `p50 ${median(busy.gateway).toFixed(2)} ms`,
      },
      {
        label: `search p99 (summary or page of 50, rare text) with ${SEARCHERS} at once`,
        value: percentile(searchTimes, 99),
        unit: 'ms',
        baseline: { label: 'the same search the plain way (LIKE over every row), median', value: median(plain) },
        target: { max: 100 },
        note: `${searchTimes.length} searches (${statusNote(searchStatuses)}); one at a time: p50 ${median(idleSearch).toFixed(2)} ms, p99 ${percentile(idleSearch, 99).toFixed(2)} ms`,
      },
    ];
  } finally {
    await pool.close();
    await server.stop();
  }
}
