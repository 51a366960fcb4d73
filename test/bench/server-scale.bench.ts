import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, openSync, closeSync, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';
import pino from 'pino';
import { openDatabase, type Db } from '../../src/server/db/open.js';
import { auditCsvColumns, auditSpec, listAudit, toAuditEntry } from '../../src/server/governance/audit-trail.js';
import { startExport } from '../../src/server/governance/export.js';
import type { HandlerContext } from '../../src/server/http/route-kit.js';
import type { AuditQuery } from '../../src/contract/index.js';
import { issueToken, startServer } from './lib/cli-server.js';
import { copyAuditDb, ensureAuditDb, type AuditDb } from './lib/audit-db.js';
import { loadAverage, median, nowMs, percentile } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 4, point 4: the server with 1,000,000 audit entries.
 *  - a filtered page of 100 through the route's own query code (listAudit) against the same query
 *    as raw SQL on better-sqlite3, p99 over many calls, interleaved so both see the same noise;
 *    then over real HTTP on loopback (the built CLI server in a child process) for information;
 *  - a CSV export of every row through the route's export code, piped to /dev/null, against the
 *    sqlite3 command-line tool's own CSV dump of the same rows in the same order.
 * Peak memory of an export is measured in a fresh process by server-export-memory.
 */
export const name = 'server-scale';

const ROWS = 1_000_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SQLITE3 = '/usr/bin/sqlite3';
const SELECT = auditSpec.select;
const NEWEST = 'ORDER BY at_ms DESC, seq DESC LIMIT 101';
/** time for the raw side of one case; beyond it, only the route's calls continue */
const RAW_BUDGET_MS = 15_000;

interface Case {
  label: string;
  query: Partial<AuditQuery>;
  /** the same page as plain SQL: WHERE clause and parameters */
  where: string;
  params: unknown[];
}

const iso = (ms: number) => new Date(ms).toISOString();

function cases(meta: AuditDb): Case[] {
  const person = meta.actors.find((a) => a.subject.includes('@'))!.subject; // the busiest person
  const day = { start: meta.toMs - 8 * DAY, end: meta.toMs - 7 * DAY };
  const week = { start: meta.toMs - 7 * DAY, end: meta.toMs };
  return [
    { label: 'no filter (newest)', query: {}, where: '', params: [] },
    {
      label: `actor=${person.split('@')[0]}`,
      query: { actor: person },
      where: 'WHERE actor_subject = ?',
      params: [person],
    },
    {
      label: 'action=model.activate (0.5%)',
      query: { action: 'model.activate' },
      where: 'WHERE action = ?',
      params: ['model.activate'],
    },
    {
      label: 'action=gateway.key.* (20%)',
      query: { action: 'gateway.key.*' },
      where: "WHERE action GLOB 'gateway.key.*'",
      params: [],
    },
    { label: 'outcome=denied (0.3%)', query: { outcome: 'denied' }, where: 'WHERE outcome = ?', params: ['denied'] },
    {
      label: 'one day a week ago',
      query: { start_time: iso(day.start), end_time: iso(day.end) },
      where: 'WHERE at_ms >= ? AND at_ms < ?',
      params: [day.start, day.end],
    },
    {
      label: 'actor+outcome=failed+last 7 days',
      query: { actor: person, outcome: 'failed', start_time: iso(week.start), end_time: iso(week.end) },
      where: 'WHERE actor_subject = ? AND outcome = ? AND at_ms >= ? AND at_ms < ?',
      params: [person, 'failed', week.start, week.end],
    },
    {
      label: 'actor=svc-ingest-scheduler+outcome=denied (none)',
      query: { actor: 'svc-ingest-scheduler', outcome: 'denied' },
      where: 'WHERE actor_subject = ? AND outcome = ?',
      params: ['svc-ingest-scheduler', 'denied'],
    },
  ];
}

/** The route's page and the raw one must be the same rows, or the comparison means nothing. */
function checkSame(label: string, routeIds: string[], rawIds: string[]): void {
  if (routeIds.length !== rawIds.length || routeIds.some((id, i) => id !== rawIds[i])) {
    throw new Error(
      `${label}: the route's page differs from the raw SQL page (${routeIds.length} vs ${rawIds.length} rows)`,
    );
  }
}

/** Page 1 and, when there is one, page 2 (through the cursor) of each case: both paths, interleaved. */
function measurePages(db: Db, meta: AuditDb, ctx: BenchContext, routeP99: Map<string, number>): Figure[] {
  const iterations = ctx.quick ? 200 : 2000;
  const warmup = ctx.quick ? 20 : 200;
  const figures: Figure[] = [];
  const all: Case[] = [];
  for (const c of cases(meta)) {
    all.push(c);
    const first = listAudit(db, { limit: 100, ...c.query } as AuditQuery);
    if (first.next_cursor && c.label.startsWith('action=gateway')) {
      // page 2 of a prefix filter: three index arms merged after a cursor
      const lastRow = db.prepare('SELECT at_ms, seq FROM audit WHERE id = ?').get(first.data[99].id) as {
        at_ms: number;
        seq: number;
      };
      const where = `${c.where} AND (at_ms, seq) < (?, ?)`;
      all.push({
        label: `${c.label}, page 2 (cursor)`,
        query: { ...c.query, after: first.next_cursor },
        where,
        params: [...c.params, lastRow.at_ms, lastRow.seq],
      });
    }
  }
  for (const c of all) {
    const raw = db.prepare(`SELECT ${SELECT} FROM audit ${c.where} ${NEWEST}`);
    const q = { limit: 100, ...c.query } as AuditQuery;
    const routePage = () => listAudit(db, q);
    const rawPage = () => raw.all(...c.params) as { id: string }[];
    checkSame(
      c.label,
      routePage().data.map((e) => e.id),
      rawPage()
        .slice(0, 100)
        .map((r) => r.id),
    );
    const routeMs: number[] = [];
    const rawMs: number[] = [];
    let rawSpent = 0;
    for (let i = -warmup; i < iterations; i++) {
      // alternate which goes first, so neither always finds the other's pages in cache; a raw
      // query the planner makes slow (a sort of every match) stops after RAW_BUDGET_MS
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      for (const which of order) {
        if (which === 1 && rawSpent > RAW_BUDGET_MS) continue;
        const t0 = nowMs();
        if (which === 0) routePage();
        else rawPage();
        const dt = nowMs() - t0;
        if (which === 1) rawSpent += dt;
        if (i >= 0) (which === 0 ? routeMs : rawMs).push(dt);
        else if (which === 1 && dt > 50) i = Math.max(i, -1); // a slow raw query: no long warm-up
      }
    }
    const rawPlan = (
      db.prepare(`EXPLAIN QUERY PLAN SELECT ${SELECT} FROM audit ${c.where} ${NEWEST}`).all(...c.params) as {
        detail: string;
      }[]
    )
      .map((s) => s.detail)
      .join('; ');
    figures.push({
      label: `page of 100, ${c.label}: p99`,
      value: percentile(routeMs, 99),
      unit: 'ms',
      baseline: { label: 'raw SQL p99', value: percentile(rawMs, 99) },
      target: { max: 5, maxRatio: 2 },
      note: `p50 ${median(routeMs).toFixed(3)} vs raw ${median(rawMs).toFixed(3)} ms; ${routeMs.length} vs ${rawMs.length} calls; raw plan: ${rawPlan}`,
    });
    routeP99.set(c.label, percentile(routeMs, 99));
    ctx.log(`${c.label}: p99 ${percentile(routeMs, 99).toFixed(3)} ms, raw ${percentile(rawMs, 99).toFixed(3)} ms`);
  }
  return figures;
}

const search = (q: Partial<AuditQuery>) =>
  new URLSearchParams({ limit: '100', ...(q as Record<string, string>) }).toString();

/** The same pages over HTTP from the built server in a child process, one connection, sequential. */
async function measureHttp(
  dataDir: string,
  meta: AuditDb,
  routeP99: Map<string, number>,
  ctx: BenchContext,
): Promise<Figure[]> {
  const iterations = ctx.quick ? 100 : 500;
  const token = issueToken(dataDir, 'auditor', 'bench-scale');
  const server = await startServer(dataDir);
  const pool = new Pool(server.url, { connections: 1 });
  const figures: Figure[] = [];
  try {
    for (const c of cases(meta)) {
      const path = `/v1/admin/audit?${search(c.query)}`;
      const get = async () => {
        const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
      };
      for (let i = 0; i < 50; i++) await get();
      const ms = new Float64Array(iterations);
      for (let i = 0; i < iterations; i++) {
        const t0 = nowMs();
        await get();
        ms[i] = nowMs() - t0;
      }
      const inProcess = routeP99.get(c.label);
      figures.push({
        label: `HTTP GET /audit, ${c.label}: p99`,
        value: percentile(ms, 99),
        unit: 'ms',
        ...(inProcess !== undefined ? { baseline: { label: 'listAudit in process p99', value: inProcess } } : {}),
        note: `p50 ${median(ms).toFixed(3)} ms; ${iterations} sequential requests on one keep-alive connection to 127.0.0.1`,
      });
    }
  } finally {
    await pool.close();
    await server.stop();
  }
  return figures;
}

/** Runs the route's export of every row to /dev/null; returns rows and seconds. */
async function exportAll(db: Db): Promise<{ rows: number; seconds: number }> {
  const ctx = {
    db,
    principal: { subject: 'bench', role: 'auditor' },
    requestId: 'req_bench',
    sourceIp: '127.0.0.1',
    log: pino({ level: 'silent' }),
    afterCommit: () => {},
  } as unknown as HandlerContext;
  const t0 = nowMs();
  const file = startExport(ctx, auditSpec, { format: 'csv' }, toAuditEntry, auditCsvColumns);
  await pipeline(file.stream, createWriteStream('/dev/null'));
  const seconds = (nowMs() - t0) / 1000;
  const rows = db.prepare('SELECT count(*) FROM audit').pluck().get() as number;
  return { rows, seconds };
}

const DUMP_SQL = `SELECT id, at, actor_subject, actor_role, action, target_type, target_id, outcome, status, request_id, source_ip, details FROM audit ORDER BY at_ms, seq`;

/** sqlite3 -csv -header FILE 'SELECT … ORDER BY at_ms, seq' > /dev/null: seconds. */
async function sqliteDump(file: string): Promise<number> {
  const devnull = openSync('/dev/null', 'w');
  try {
    const t0 = nowMs();
    await new Promise<void>((resolve, reject) => {
      const p = spawn(SQLITE3, ['-csv', '-header', file, DUMP_SQL], { stdio: ['ignore', devnull, 'pipe'] });
      let err = '';
      p.stderr!.on('data', (d) => {
        err += d;
      });
      p.on('error', reject);
      p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sqlite3 exited ${code}: ${err}`))));
    });
    return (nowMs() - t0) / 1000;
  } finally {
    closeSync(devnull);
  }
}

/** Same export over HTTP from the built server, counting bytes, for information. */
async function exportOverHttp(dataDir: string): Promise<{ seconds: number; bytes: number }> {
  const token = issueToken(dataDir, 'auditor', 'bench-export');
  const server = await startServer(dataDir);
  try {
    const t0 = nowMs();
    const res = await fetch(`${server.url}/v1/admin/audit/export?format=csv`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 200 || !res.body) throw new Error(`export over HTTP: ${res.status}`);
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Uint8Array).byteLength;
    return { seconds: (nowMs() - t0) / 1000, bytes };
  } finally {
    await server.stop();
  }
}

async function measureExport(dataDir: string, db: Db, ctx: BenchContext): Promise<Figure[]> {
  const dbFile = `${dataDir}/appliance-admin.db`;
  const runs = ctx.quick ? 1 : 3;
  const ours: number[] = [];
  const theirs: number[] = [];
  let rows = 0;
  const haveSqlite = existsSync(SQLITE3);
  for (let i = 0; i < runs; i++) {
    const r = await exportAll(db);
    rows = r.rows;
    ours.push(r.rows / r.seconds);
    ctx.log(`export ${i + 1}/${runs}: ${r.rows.toLocaleString('en-US')} rows in ${r.seconds.toFixed(2)} s`);
    if (haveSqlite) {
      const s = await sqliteDump(dbFile);
      theirs.push(r.rows / s);
      ctx.log(`sqlite3 dump ${i + 1}/${runs}: ${s.toFixed(2)} s`);
    }
  }
  const figures: Figure[] = [
    {
      label: `CSV export of all ${rows.toLocaleString('en-US')} rows (route code -> /dev/null), median of ${runs}`,
      value: median(ours),
      unit: 'rows/s',
      ...(haveSqlite ? { baseline: { label: 'sqlite3 -csv dump', value: median(theirs) } } : {}),
      target: { min: 250_000 },
      note: haveSqlite
        ? `baseline: ${SQLITE3} -csv -header DB '${DUMP_SQL}' > /dev/null; runs ${ours.map((x) => Math.round(x)).join(', ')} vs ${theirs.map((x) => Math.round(x)).join(', ')} rows/s`
        : `${SQLITE3} is missing: no baseline`,
    },
  ];
  const http = await exportOverHttp(dataDir);
  figures.push({
    label: 'CSV export of all rows over HTTP (GET /audit/export, built server)',
    value: (rows + 1) / http.seconds,
    unit: 'rows/s',
    ...(haveSqlite ? { baseline: { label: 'sqlite3 -csv dump', value: median(theirs) } } : {}),
    note: `${(http.bytes / 2 ** 20).toFixed(0)} MiB in ${http.seconds.toFixed(2)} s, client fetch() in the benchmark process`,
  });
  return figures;
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const meta = ensureAuditDb(ctx.outDir, ROWS, ctx.log);
  const dataDir = copyAuditDb(meta, ctx.outDir, name);
  try {
    ctx.log(`load average ${loadAverage()}`);
    const db = openDatabase(dataDir);
    const routeP99 = new Map<string, number>();
    const figures = measurePages(db, meta, ctx, routeP99);
    ctx.log(`load average ${loadAverage()}`);
    figures.push(...(await measureHttp(dataDir, meta, routeP99, ctx)));
    figures.push(...(await measureExport(dataDir, db, ctx)));
    db.close();
    ctx.log(`load average ${loadAverage()}`);
    return figures;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
