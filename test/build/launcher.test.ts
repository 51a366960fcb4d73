import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
// @ts-expect-error: a plain .mjs build script without types
import { LAUNCH_OPTIONS } from '../../scripts/bundle-options.mjs';

// inside the repository, so that the launcher finds node_modules as dist/ does
const dir = mkdtempSync(join(process.cwd(), 'node_modules', '.aa-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the CLI's launcher (dist/launch.cjs)", () => {
  it('holds no dependency, and loads no built-in that only a later step needs', async () => {
    const out = await build({
      ...LAUNCH_OPTIONS,
      entryPoints: [join(process.cwd(), 'src/cli/launch.ts')],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    // compiled at every start without a code cache: no dependency's code in it
    expect(Object.keys(out.metafile!.inputs).filter((input) => input.includes('node_modules'))).toEqual([]);
    const file = join(dir, 'launch.cjs');
    writeFileSync(file, out.outputFiles![0].text);
    // a fresh process: this one has loaded half of Node already
    // the list is taken before process.stdout, a pipe here, loads net and streams
    const script = `const m = require(${JSON.stringify(file)}); if (typeof m.launch !== 'function') throw new Error('no launch'); const list = JSON.stringify(process.moduleLoadList); process.stdout.write(list)`;
    const loaded = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
    const builtins = new Set(
      loaded.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length)),
    );
    expect(builtins.has('vm')).toBe(true); // the check sees what the launcher loads (the code cache's vm.Script)
    for (const lazy of ['child_process', 'net', 'stream', 'http', 'tls', 'crypto', 'zlib'])
      expect(builtins.has(lazy), lazy).toBe(false);
  });
});
