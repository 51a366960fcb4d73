import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startTestServer } from '../helpers/server.js';
import { ensureDist } from './lib/cli-server.js';
import { CONNECTOR_TEXT, cpuMs, launchInPty } from './lib/dashboard-pty.js';
import { loadAverage } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 4, point 3: the built dashboard (in a pseudo-terminal, `--refresh 2s`, on its first
 * screen) against a real server with nothing changing on it (the test fixtures, no demo traffic),
 * for 60 s once its first data is on screen. The server runs in this process so that it can count
 * what it accepts and answers (server 'connection' and 'request' events). The dashboard's CPU comes
 * from /proc/PID/stat; the baseline is `node -e "setInterval(()=>{},2000)"` over the same window.
 */
export const name = 'dashboard-idle';

const REFRESH_MS = 2000;

export async function run(ctx: BenchContext): Promise<Figure[]> {
  ensureDist();
  const windowMs = ctx.quick ? 16_000 : 60_000;
  const load0 = loadAverage();
  const srv = await startTestServer();
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
  try {
    await dash.waitFor(CONNECTOR_TEXT);
    // let the first polls and renders settle (a 304 round has happened)
    await new Promise((r) => setTimeout(r, 2 * REFRESH_MS + 500));
    const pid = dash.programPid();
    ctx.log(`dashboard pid ${pid}: measuring ${windowMs / 1000} s`);
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
    const load1 = loadAverage();
    return [
      {
        label: `dashboard CPU over ${windowMs / 1000} s at a 2 s refresh, nothing changing`,
        value: (cpu / windowMs) * 100,
        unit: '% of a core',
        baseline: { label: 'node -e "setInterval(()=>{},2000)", same window', value: (base / windowMs) * 100 },
        target: { max: 1 },
        note: `${cpu} ms CPU (utime+stime, 10 ms ticks) in ${windowMs / 1000} s; baseline ${base} ms; load ${load0} -> ${load1}`,
      },
      {
        label: 'polls answered 304 Not Modified',
        value: gets ? (notModified / gets) * 100 : 0,
        unit: '%',
        target: { min: 95 },
        note: `${notModified} of ${gets} GETs: ${detail}`,
      },
      {
        label: 'polls in the window',
        value: gets,
        unit: 'GETs',
        baseline: { label: 'one per refresh for the one resource of the connectors screen', value: windowMs / REFRESH_MS },
      },
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
  }
}
