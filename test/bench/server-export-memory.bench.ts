import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import v8 from 'node:v8';
import pino from 'pino';
import { openDatabase } from '../../src/server/db/open.js';
import { auditCsvColumns, auditSpec, toAuditEntry } from '../../src/server/governance/audit-trail.js';
import { startExport } from '../../src/server/governance/export.js';
import type { HandlerContext } from '../../src/server/http/route-kit.js';
import { issueToken, processRss, startServer } from './lib/cli-server.js';
import { copyAuditDb, ensureAuditDb } from './lib/audit-db.js';
import { MB, loadAverage, nowMs, rss } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 4, point 4 (memory): how much the resident memory of a process grows while it exports
 * 100,000 audit rows as CSV, measured in this fresh process (the harness runs each benchmark in its
 * own): RSS just before the export, then sampled every 2 ms while it streams and once after,
 * and the kernel's peak (maxRSS) as a cross-check. The baseline is the size of the file: an export
 * that held the file in memory would grow by at least that. For information, the same over HTTP
 * with the built server in a child process, its RSS sampled from /proc.
 */
export const name = 'server-export-memory';

const ROWS = 100_000;

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const meta = ensureAuditDb(ctx.outDir, ROWS, ctx.log);
  const dataDir = copyAuditDb(meta, ctx.outDir, name);
  try {
    ctx.log(`load average ${loadAverage()}`);
    const db = openDatabase(dataDir);
    const exportCtx = {
      db,
      principal: { subject: 'bench', role: 'auditor' },
      requestId: 'req_bench',
      sourceIp: '127.0.0.1',
      log: pino({ level: 'silent' }),
      afterCommit: () => {},
    } as unknown as HandlerContext;

    let bytes = 0;
    const counter = new Writable({
      write(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done();
      },
    });
    const spaces = () =>
      Object.fromEntries(
        v8
          .getHeapSpaceStatistics()
          .filter((x) => x.space_size > 2 * MB)
          .map((x) => [x.space_name.replace('_space', ''), Math.round(x.space_size / MB)]),
      );
    const spacesBefore = spaces();
    const externalBefore = process.memoryUsage().external;
    const before = rss();
    const maxRssBefore = process.resourceUsage().maxRSS * 1024;
    let peak = before;
    const sample = () => {
      const now = rss();
      if (now.total > peak.total) peak = { ...peak, total: now.total };
      if (now.anon > peak.anon) peak = { ...peak, anon: now.anon };
    };
    const timer = setInterval(sample, 2);
    const t0 = nowMs();
    const file = startExport(exportCtx, auditSpec, { format: 'csv' }, toAuditEntry, auditCsvColumns);
    await pipeline(file.stream, counter);
    const seconds = (nowMs() - t0) / 1000;
    clearInterval(timer);
    sample();
    const maxRssAfter = process.resourceUsage().maxRSS * 1024;
    const heapNote = `V8 heap spaces ${JSON.stringify(spacesBefore)} -> ${JSON.stringify(spaces())} MB, external ${(externalBefore / MB).toFixed(0)} -> ${(process.memoryUsage().external / MB).toFixed(0)} MB`;
    db.close();
    // the kernel's peak only says something when it was reached during the export
    const kernelGrowth = maxRssAfter > maxRssBefore ? maxRssAfter - before.total : 0;
    const growth = Math.max(peak.total - before.total, kernelGrowth);
    ctx.log(
      `exported ${bytes} bytes in ${seconds.toFixed(2)} s; rss ${(before.total / MB).toFixed(1)} -> peak ${(peak.total / MB).toFixed(1)} MB`,
    );

    const http = await overHttp(dataDir, ctx);
    return [
      {
        label: `peak RSS growth while exporting ${ROWS.toLocaleString('en-US')} rows as CSV (fresh process, route code -> counting sink)`,
        value: growth / MB,
        unit: 'MB',
        baseline: { label: 'size of the CSV file', value: bytes / MB },
        target: { max: 50 },
        note: `RSS ${(before.total / MB).toFixed(1)} MB before, sampled peak ${(peak.total / MB).toFixed(1)} MB, kernel maxRSS ${(maxRssAfter / MB).toFixed(1)} MB (before ${(maxRssBefore / MB).toFixed(1)}); ${seconds.toFixed(2)} s`,
      },
      {
        label: 'of which anonymous memory (heap, buffers; not SQLite file pages)',
        value: (peak.anon - before.anon) / MB,
        unit: 'MB',
        note: `RssAnon ${(before.anon / MB).toFixed(1)} -> ${(peak.anon / MB).toFixed(1)} MB; ${heapNote}`,
      },
      http,
    ];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The built server exporting the same rows over HTTP; its RSS from /proc every 2 ms. */
async function overHttp(dataDir: string, ctx: BenchContext): Promise<Figure> {
  const token = issueToken(dataDir, 'auditor', 'bench-memory');
  const server = await startServer(dataDir);
  try {
    // one small request first, so the route's code is loaded before the baseline
    await (
      await fetch(`${server.url}/v1/admin/audit?limit=1`, { headers: { authorization: `Bearer ${token}` } })
    ).text();
    const before = processRss(server.pid).total;
    let peak = before;
    const timer = setInterval(() => {
      peak = Math.max(peak, processRss(server.pid).total);
    }, 2);
    const res = await fetch(`${server.url}/v1/admin/audit/export?format=csv`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 200 || !res.body) throw new Error(`export over HTTP: ${res.status}`);
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Uint8Array).byteLength;
    clearInterval(timer);
    peak = Math.max(peak, processRss(server.pid).total);
    ctx.log(`over HTTP: server RSS ${(before / MB).toFixed(1)} -> peak ${(peak / MB).toFixed(1)} MB, ${bytes} bytes`);
    return {
      label: 'server process RSS growth while it serves the same export over HTTP',
      value: (peak - before) / MB,
      unit: 'MB',
      baseline: { label: 'size of the CSV file', value: bytes / MB },
      note: `built CLI server in a child process, RSS from /proc/PID/status every 2 ms: ${(before / MB).toFixed(1)} -> ${(peak / MB).toFixed(1)} MB`,
    };
  } finally {
    await server.stop();
  }
}
