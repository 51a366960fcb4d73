import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without types
import { DASHBOARD_BUNDLE_OPTIONS } from '../../scripts/bundle-options.mjs';
import { ROUTE_META } from '../../src/contract/route-meta.js';

/**
 * What the dashboard's bundle evaluates as it loads, before its first frame: every module reached
 * from its entry by static imports (esbuild runs a module reached only by `import()` when that
 * import runs). Code the first frame does not use stays out of that set (docs/performance.md).
 */
let eager: Set<string>;
beforeAll(async () => {
  const out = await build({
    ...DASHBOARD_BUNDLE_OPTIONS,
    entryPoints: ['src/cli/dashboard-bundle.ts'],
    outdir: 'unused',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs: Metafile['inputs'] = out.metafile!.inputs;
  eager = new Set();
  const visit = (path: string) => {
    if (eager.has(path)) return;
    eager.add(path);
    for (const i of inputs[path]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit('src/cli/dashboard-bundle.ts');
}, 60_000);

describe("what the dashboard's bundle runs as it loads", () => {
  it('builds no contract area: a route builds its area on its first call', () => {
    expect(eager.has('src/contract/route-meta.ts')).toBe(true); // the check sees the start path
    const areas = new Set(Object.values(ROUTE_META).map((r) => r.area));
    for (const area of areas) expect(eager.has(`src/contract/${area}.ts`), area).toBe(false);
    expect(eager.has('src/contract/index.ts')).toBe(false);
  });

  it('loads no zod as it loads: roles and names are read without it, the stored sign-in is checked by hand', () => {
    expect(eager.has('src/contract/roles.ts')).toBe(true); // the check sees the session's roles
    expect(eager.has('src/client/session/store.ts')).toBe(true); // and the stored sign-in's reader
    expect(eager.has('src/contract/common.ts')).toBe(false);
    expect([...eager].filter((p) => p.includes('node_modules/zod/'))).toEqual([]);
  });
});
