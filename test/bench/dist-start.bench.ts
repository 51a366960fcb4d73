import { rmSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error: a plain .mjs build script without types
import { buildSingleFile, node24 } from '../../scripts/dist.mjs';
import { CLI, launchInPty, OVERVIEW_TEXT, startFixtureServer } from './lib/dashboard-pty.js';
import { ensureDist } from './lib/cli-server.js';
import { loadAverage, median } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 42 §1: the single file (scripts/dist.mjs, Node 24 inside) starts within 1.3x of the
 * npm-installed dashboard (`node bin/appliance-admin.cjs`, on this host's Node), from its launch in
 * a real pseudo-terminal to the overview's first frame with data from the built server on loopback
 * (lib/dashboard-pty.ts, as dashboard-start measures it); interleaved rounds, medians, each with its
 * own code cache made by the warm-up launches. For information, the npm build on the single file's
 * own Node 24, which tells Node's part from the single file's.
 */
export const name = 'dist-start';

const PLAIN: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: undefined };

export async function run(ctx: BenchContext): Promise<Figure[]> {
  ensureDist();
  const rounds = ctx.quick ? 5 : 15;
  const load0 = loadAverage();
  const node = node24() as string;
  ctx.log('building the single file');
  const single = (await buildSingleFile({
    outFile: join(ctx.outDir, `dist-start-${process.pid}`, 'appliance-admin'),
    node,
  })) as string;
  const srv = await startFixtureServer(ctx.outDir, 'dist-start');
  const args = ['--url', srv.url, '--token-file', srv.tokenFile];
  const variants = {
    single: [single, ...args],
    npm: [process.execPath, CLI, ...args],
    npmOn24: [node, CLI, ...args],
  };
  const caches = Object.fromEntries(
    Object.keys(variants).map((v) => [v, join(ctx.outDir, `dist-start-cache-${v}-${process.pid}`)]),
  );
  /** ms from the program's launch to the overview's first frame with data */
  const once = async (variant: keyof typeof variants) => {
    const p = launchInPty([], { command: variants[variant], env: { XDG_CACHE_HOME: caches[variant], ...PLAIN } });
    try {
      return (await p.waitFor(OVERVIEW_TEXT)) - p.execAt();
    } finally {
      await p.quit();
    }
  };
  const times: Record<keyof typeof variants, number[]> = { single: [], npm: [], npmOn24: [] };
  try {
    // the code caches, the page cache and the server's routes warm
    for (let i = 0; i < 2; i++) for (const v of Object.keys(variants) as (keyof typeof variants)[]) await once(v);
    ctx.log(`${rounds} interleaved rounds: the single file, the npm build on ${process.version}, on Node 24`);
    for (let i = 0; i < rounds; i++) {
      // each first in turn, so that none always runs warmer
      const order = (['single', 'npm', 'npmOn24'] as const).map((_, k, all) => all[(i + k) % all.length]);
      for (const v of order) times[v].push(await once(v));
    }
  } finally {
    await srv.close();
    for (const dir of Object.values(caches)) rmSync(dir, { recursive: true, force: true });
    rmSync(join(single, '..'), { recursive: true, force: true });
  }
  const load = `load ${load0} → ${loadAverage()}`;
  const npm = { label: `npm build, node ${process.version}: median`, value: median(times.npm) };
  return [
    {
      label: 'single file: launch to the overview with data, median',
      value: median(times.single),
      unit: 'ms',
      baseline: npm,
      target: { maxRatio: 1.3 },
      note: `${rounds} rounds; ${load}`,
    },
    {
      label: 'npm build on the single file’s Node 24: median (information)',
      value: median(times.npmOn24),
      unit: 'ms',
      baseline: npm,
      note: `${process.version} vs ${node}`,
    },
  ];
}
