import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
// @ts-expect-error: a plain .mjs build script without types
import { inkFrameTarget } from './scripts/ink-frame.mjs';

// Files that replace a module (vi.mock, vi.doMock) or a global need a module registry of their own,
// and a file that takes a heap snapshot needs a heap of its own (a shared worker's heap holds every earlier
// file's leftovers: CI's snapshot of one ran past the test's minute); every other file shares its worker's modules with the files run before it (isolate: false), which
// saves most of the suite's import time (docs/performance.md, "The test suite").
const OWN_MODULES = [
  'test/session/device-login.test.ts',
  'test/cli/evidence-enospc.test.ts',
  'test/cli/login-hostile.test.ts',
  'test/faults/terminal-safety.test.tsx',
  'test/faults/secrets.test.tsx',
  'test/screens/audit-chain-load.test.ts',
  'test/server/answer-check.test.ts',
  'test/server/route-declarations.test.ts',
];
const TESTS = ['test/**/*.test.{ts,tsx}'];
const NOT_TESTS = ['test/bench/**', 'node_modules/**'];

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
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: TESTS, exclude: [...NOT_TESTS, ...OWN_MODULES], isolate: false },
      },
      { extends: true, test: { name: 'own-modules', include: OWN_MODULES, exclude: NOT_TESTS } },
    ],
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
