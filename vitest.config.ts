import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
// @ts-expect-error: a plain .mjs build script without types
import { inkFrameTarget } from './scripts/ink-frame.mjs';

export default defineConfig({
  plugins: [
    {
      // the bundle's Ink frame builder (scripts/ink-frame.mjs), so screen tests draw as the CLI does
      name: 'ink-frame',
      enforce: 'pre',
      resolveId(source: string, importer: string | undefined) {
        return importer ? (inkFrameTarget(source, importer) ?? null) : null;
      },
      // Ink's and ink-testing-library's files name source maps they do not ship: Vite would warn per file
      load(id: string) {
        if (!/[\\/]node_modules[\\/]ink(-testing-library)?[\\/]build[\\/].*\.js$/.test(id)) return null;
        return { code: readFileSync(id, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'), map: null };
      },
    },
  ],
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    exclude: ['test/bench/**', 'node_modules/**'],
    globalSetup: ['test/helpers/global-temp.ts'],
    setupFiles: ['test/helpers/chain-check-settled.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The suite waits more than it computes (servers, child processes, terminals, poll intervals):
    // vitest's default of one worker fewer than the cores ran one file at a time on CI's 2 cores
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Ink goes through Vite so that the plugin above can replace its frame builder
    server: { deps: { inline: ['ink'] } },
  },
});
