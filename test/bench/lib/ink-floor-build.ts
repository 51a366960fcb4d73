import { join } from 'node:path';
import { build } from 'esbuild';
// @ts-expect-error: a plain .mjs build script without types
import { DASHBOARD_BUNDLE_OPTIONS, LAUNCH_OPTIONS } from '../../../scripts/bundle-options.mjs';
import { REPO } from './cli-server.js';

/**
 * Bundles lib/ink-floor.tsx as the dashboard is bundled (one CommonJS file) and its launcher as the
 * CLI's entry is; returns the launcher to run with node.
 */
export async function buildInkFloor(outDir: string): Promise<string> {
  const dir = join(outDir, 'ink-floor');
  const common = { absWorkingDir: REPO, outdir: dir, outExtension: { '.js': '.cjs' }, logLevel: 'warning' as const };
  await build({
    ...DASHBOARD_BUNDLE_OPTIONS,
    ...common,
    entryPoints: { floor: join(REPO, 'test/bench/lib/ink-floor.tsx') },
  });
  await build({
    ...LAUNCH_OPTIONS,
    ...common,
    entryPoints: { launch: join(REPO, 'test/bench/lib/ink-floor-launch.ts') },
  });
  return join(dir, 'launch.cjs');
}
