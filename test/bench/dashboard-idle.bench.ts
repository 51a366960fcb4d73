import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startTestServer } from '../helpers/server.js';
import { ensureDist } from './lib/cli-server.js';
import { copyAuditDb, ensureAuditDb } from './lib/audit-db.js';
import { CONNECTOR_TEXT, cpuMs, launchInPty, OVERVIEW_TEXT } from './lib/dashboard-pty.js';
import { loadAverage } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 4, point 3: the built dashboard (in a pseudo-terminal, `--refresh 2s`) against a real
 * server with nothing changing on it (the test fixtures and the cached 100,000-entry audit trail,
 * no demo traffic), for 60 s on its first screen (the overview, thirteen resources: three at every refresh, ten every 10 s) once data is on
 * it, then 60 s on the connectors screen, then 60 s on the audit screen. The server runs in this process so that it can count
 * what it accepts and answers (server 'connection' and 'request' events). The dashboard's CPU comes
 * from /proc/PID/stat; the baseline is `node -e "setInterval(()=>{},2000)"` over the same window.
 */
export const name = 'dashboard-idle';

const REFRESH_MS = 2000;

interface Window {
  cpuPct: number;
  cpuMs: number;
  basePct: number;
  baseMs: number;
  gets: number;
  notModified: number;
  detail: string;
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  ensureDist();
  const windowMs = ctx.quick ? 16_000 : 60_000;
  const load0 = loadAverage();
  // the cached 100,000-entry audit trail, so that the audit screen's page is full
  const dataDir = copyAuditDb(ensureAuditDb(ctx.outDir, 100_000, ctx.log), ctx.outDir, `idle-${process.pid}`);
  const srv = await startTestServer({ dataDir });
  const http = srv.server.app.server;
  let connections = 0;
  const statuses = new Map<string, number>();
  let counting = false;
  http.on('connection', () => connections++);
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    res.once('finish', () => {
      if (!counting || req.method !== 'GET') return;
      const key = `${res.statusCode} ${req.url?.replace(/\?.*/, '')}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    });
  });
  const dir = mkdtempSync(join(ctx.outDir, 'work-idle-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${srv.tokens.it_admin}\n`, { mode: 0o600 });
  const dash = launchInPty(['--url', srv.url, '--token-file', tokenFile, '--refresh', '2s']);
  const idle = spawn(process.execPath, ['-e', 'setInterval(()=>{},2000)'], { stdio: 'ignore' });
  const measure = async (pid: number): Promise<Window> => {
    // let the first polls and renders settle (a 304 round has happened)
    await new Promise((r) => setTimeout(r, 2 * REFRESH_MS + 500));
    statuses.clear();
    const cpu0 = cpuMs(pid);
    const base0 = cpuMs(idle.pid!);
    counting = true;
    await new Promise((r) => setTimeout(r, windowMs));
    counting = false;
    const cpu = cpuMs(pid) - cpu0;
    const base = cpuMs(idle.pid!) - base0;
    const gets = [...statuses.values()].reduce((a, b) => a + b, 0);
    const notModified = [...statuses].filter(([k]) => k.startsWith('304 ')).reduce((a, [, n]) => a + n, 0);
    const detail = [...statuses].map(([k, n]) => `${k.replace('/v1/admin', '')} x${n}`).join(', ');
    return {
      cpuPct: (cpu / windowMs) * 100,
      cpuMs: cpu,
      basePct: (base / windowMs) * 100,
      baseMs: base,
      gets,
      notModified,
      detail,
    };
  };
  try {
    await dash.waitFor(OVERVIEW_TEXT);
    const pid = dash.programPid();
    ctx.log(`dashboard pid ${pid}: ${windowMs / 1000} s on the overview`);
    const overview = await measure(pid);
    dash.send(':');
    await new Promise((r) => setTimeout(r, 200));
    dash.send('connectors\r');
    await dash.waitFor(CONNECTOR_TEXT);
    ctx.log(`${windowMs / 1000} s on the connectors screen`);
    const first = await measure(pid);
    dash.send(':');
    await new Promise((r) => setTimeout(r, 200));
    dash.send('audit\r');
    await dash.waitFor('row 1 of 50');
    ctx.log(`${windowMs / 1000} s on the audit screen (a page of 50 entries)`);
    const audit = await measure(pid);
    const load1 = loadAverage();
    const cpuFigure = (w: Window, where: string, note: string): Figure => ({
      label: `dashboard CPU over ${windowMs / 1000} s at a 2 s refresh, nothing changing: ${where}`,
      value: w.cpuPct,
      unit: '% of a core',
      baseline: { label: 'node -e "setInterval(()=>{},2000)", same window', value: w.basePct },
      target: { max: 1 },
      note: `${w.cpuMs} ms CPU (utime+stime, 10 ms ticks) in ${windowMs / 1000} s; baseline ${w.baseMs} ms; ${note}`,
    });
    const polls = (w: Window, where: string): Figure => ({
      label: `polls answered 304 Not Modified: ${where}`,
      value: w.gets ? (w.notModified / w.gets) * 100 : 0,
      unit: '%',
      target: { min: 95 },
      note: `${w.notModified} of ${w.gets} GETs (a resource at every refresh: ${windowMs / REFRESH_MS} expected; one polled every 10 s: ${windowMs / 10_000}): ${w.detail}`,
    });
    return [
      cpuFigure(
        overview,
        'the overview (the first screen; thirteen resources, ten of them every 10 s)',
        `load ${load0} -> ${load1}`,
      ),
      polls(overview, 'the overview'),
      cpuFigure(first, 'connectors screen (3 rows)', 'one resource'),
      polls(first, 'connectors screen'),
      cpuFigure(
        audit,
        'audit screen (a page of 50 entries, a full table)',
        'no frame while nothing on screen changes: the header says "updated just now", the rows are drawn again every 10 s for their relative times (the same text: not written)',
      ),
      polls(audit, 'audit screen'),
      {
        label: 'TCP connections the server accepted from the dashboard, launch to end',
        value: connections,
        unit: 'connections',
        target: { max: 1, min: 1 },
      },
    ];
  } finally {
    idle.kill();
    await dash.quit();
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}
