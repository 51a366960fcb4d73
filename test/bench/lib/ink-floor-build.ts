import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
// @ts-expect-error: a plain .mjs build script without types
import { DASHBOARD_BUNDLE_OPTIONS, LAUNCH_OPTIONS } from '../../../scripts/bundle-options.mjs';
import { REPO } from './cli-server.js';

// In the dashboard's bundle src/app/yoga-ready.ts becomes the patched yoga-layout's promise; the
// build's own plugin does that for imports from src/app only.
const yogaReadyFromYoga: Plugin = {
  name: 'floor-yoga-ready',
  setup(b) {
    b.onResolve({ filter: /[\\/]yoga-ready\.js$/ }, () => ({ path: 'yoga-ready', namespace: 'floor-yoga-ready' }));
    b.onLoad({ filter: /.*/, namespace: 'floor-yoga-ready' }, () => ({ contents: "export { yogaReady } from 'yoga-layout';", loader: 'js', resolveDir: REPO }));
  },
};

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
    plugins: [yogaReadyFromYoga, ...DASHBOARD_BUNDLE_OPTIONS.plugins],
  });
  await build({ ...LAUNCH_OPTIONS, ...common, entryPoints: { launch: join(REPO, 'test/bench/lib/ink-floor-launch.ts') }, plugins: [] });
  return join(dir, 'launch.cjs');
}
