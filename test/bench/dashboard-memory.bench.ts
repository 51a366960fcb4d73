import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processRss, REPO } from './lib/cli-server.js';
import { launchInPty, startFixtureServer } from './lib/dashboard-pty.js';
import { loadAverage, MB } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';
import { screens } from '../../screens/index.js';

/**
 * Issue 4, point 5: the built dashboard (in a pseudo-terminal, `--refresh 1s`) against
 * `serve --demo` (its live traffic keeps data changing), pressing Tab every 4 s so it cycles
 * through every screen (13 screens since the overview: one cycle every 52 s), for BENCH_MEMORY_MINUTES (default 10;
 * 2 with --quick). RSS is read from /proc every 10 s; heapUsed comes from lib/mem-probe.mjs,
 * preloaded into the dashboard (the only thing added to the CLI). Growth is the mean of the
 * last minute's samples minus the mean of the samples between 50 and 70 s.
 */
export const name = 'dashboard-memory';

const SAMPLE_MS = 10_000;
const TAB_MS = 4000;
const SCREENS = screens.length;

interface Sample {
  t: number;
  rss: number;
  heapUsed: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const minutes = Number(process.env.BENCH_MEMORY_MINUTES ?? (ctx.quick ? 2 : 10));
  if (!(minutes >= 2)) throw new Error('BENCH_MEMORY_MINUTES must be at least 2 (the first minute is the reference)');
  const durationMs = minutes * 60_000;
  const load0 = loadAverage();
  const srv = await startFixtureServer(ctx.outDir, 'memory', { demo: true });
  const memFile = join(ctx.outDir, `mem-probe-${process.pid}.jsonl`);
  rmSync(memFile, { force: true });
  const dash = launchInPty(['--url', srv.url, '--token-file', srv.tokenFile, '--refresh', '1s'], {
    nodeArgs: ['--import', join(REPO, 'test/bench/lib/mem-probe.mjs')],
    env: { BENCH_MEM_OUT: memFile, BENCH_MEM_EVERY_MS: String(SAMPLE_MS) },
  });
  const rss: Sample[] = [];
  let tabs = 0;
  let shown = 0;
  try {
    await dash.waitFor('appliance-admin');
    const pid = dash.programPid();
    const t0 = Date.now();
    ctx.log(`dashboard pid ${pid}: ${minutes} min, Tab every ${TAB_MS / 1000} s, samples every ${SAMPLE_MS / 1000} s`);
    const tab = setInterval(() => {
      dash.send('\t');
      tabs++;
    }, TAB_MS);
    const sample = setInterval(() => {
      const r = processRss(pid);
      rss.push({ t: Date.now() - t0, rss: r.total, heapUsed: 0 });
      if (rss.length % 6 === 0)
        ctx.log(`${Math.round((Date.now() - t0) / 60_000)} min: RSS ${(r.total / MB).toFixed(1)} MB`);
    }, SAMPLE_MS);
    await new Promise((r) => setTimeout(r, durationMs + 500));
    clearInterval(tab);
    clearInterval(sample);
    if (dash.child.exitCode !== null) throw new Error(`the dashboard ended early:\n${dash.text().slice(-2000)}`);
    shown = new Set(
      [...dash.text().matchAll(/\[([a-z]+)\]/g)].map((m) => m[1]).filter((n) => screens.some((x) => x.name === n)),
    ).size;
  } finally {
    await dash.quit();
    await srv.close();
  }
  const heap: Sample[] = existsSync(memFile)
    ? readFileSync(memFile, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Sample)
    : [];
  rmSync(memFile, { force: true });
  writeFileSync(
    join(ctx.outDir, 'dashboard-memory-samples.json'),
    `${JSON.stringify({ minutes, rss, heap }, null, 1)}\n`,
  );
  // like for like: the mean over the first whole cycle of screens after the first minute against
  // the mean over the last whole cycle (a single sample lands on whichever screen is showing)
  const cycleMs = SCREENS * TAB_MS;
  const growth = (xs: Sample[], f: (s: Sample) => number) => {
    const ref = xs.filter((s) => s.t >= 60_000 && s.t < 60_000 + cycleMs).map(f);
    const end = xs.filter((s) => s.t > durationMs - cycleMs).map(f);
    const peak = Math.max(...xs.filter((s) => s.t >= 60_000).map(f));
    const at1 = xs.find((s) => s.t >= 60_000);
    return {
      ref: mean(ref),
      end: mean(end),
      growth: mean(end) - mean(ref),
      peak,
      first: f(xs[0]),
      at1: at1 ? f(at1) : NaN,
    };
  };
  const r = growth(rss, (s) => s.rss);
  const h = growth(heap, (s) => s.heapUsed);
  const series = (xs: Sample[], f: (s: Sample) => number) =>
    xs
      .filter((_, i) => i % 6 === 5)
      .map((s) => (f(s) / MB).toFixed(1))
      .join(' ');
  return [
    {
      label: `RSS growth after the first minute, ${minutes} min cycling all ${SCREENS} screens at a 1 s refresh`,
      value: r.growth / MB,
      unit: 'MB',
      baseline: { label: 'mean RSS, first cycle after 1 min', value: r.ref / MB },
      target: { max: 10 },
      note: `mean over the last ${cycleMs / 1000} s cycle minus the mean over the first cycle after 1 min; RSS each minute (MB): ${series(rss, (s) => s.rss)}; peak after 1 min ${(r.peak / MB).toFixed(1)} (${((r.peak - r.at1) / MB).toFixed(1)} above the 1 min sample); ${tabs} Tabs (${(tabs / SCREENS).toFixed(1)} cycles); load ${load0} -> ${loadAverage()}`,
    },
    {
      label: 'V8 heapUsed growth after the first minute',
      value: h.growth / MB,
      unit: 'MB',
      baseline: { label: 'mean heapUsed, first cycle after 1 min', value: h.ref / MB },
      note: `heapUsed each minute (MB): ${series(heap, (s) => s.heapUsed)}; peak after 1 min ${(h.peak / MB).toFixed(1)}`,
    },
    { label: 'RSS at the first sample (10 s)', value: r.first / MB, unit: 'MB' },
    {
      label: 'screens seen in the header as the current one',
      value: shown,
      unit: 'screens',
      target: { min: SCREENS },
      note: 'read from the terminal output: the Tabs reached the dashboard',
    },
  ];
}
