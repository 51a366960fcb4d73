import { join } from 'node:path';
import { build } from 'esbuild';
// @ts-expect-error: a plain .mjs build script without types
import { BUNDLE_OPTIONS } from '../../../scripts/bundle-options.mjs';
import { REPO } from './cli-server.js';

/** Bundles lib/ink-floor.tsx as the CLI is bundled; returns the file to run with node. */
export async function buildInkFloor(outDir: string): Promise<string> {
  const dir = join(outDir, 'ink-floor');
  await build({
    ...BUNDLE_OPTIONS,
    entryPoints: { floor: join(REPO, 'test/bench/lib/ink-floor.tsx') },
    absWorkingDir: REPO,
    outdir: dir,
    splitting: true,
    logLevel: 'warning',
  });
  return join(dir, 'floor.js');
}
