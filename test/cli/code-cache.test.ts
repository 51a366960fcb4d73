import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultCacheDir, requireWithCodeCache } from '../../src/cli/code-cache.js';

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'aa-code-cache-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** a CommonJS "bundle" with some code worth caching, and a require of a built-in */
function bundle(dir: string, name: string, answer: number): string {
  const file = join(dir, name);
  const fns = Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x + ${i}; }`).join('\n');
  writeFileSync(
    file,
    `${fns}\nconst { sep } = require('node:path');\nexports.answer = () => f0(${answer}) + (sep ? 0 : 1);\nexports.name = __filename;\n`,
  );
  return file;
}

type Exports = { answer(): number; name: string };

/** requireWithCodeCache in a fresh node process: its cache outcome and the bundle's answer */
function loadInChild(file: string, dir: string, save = false): { cache: string; answer?: number; text?: string } {
  const child = join(import.meta.dirname, 'code-cache-child.ts');
  const out = execFileSync(process.execPath, ['--import', 'tsx', child, file, dir, ...(save ? ['save'] : [])], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(out);
}
const cacheFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.v8cache'))
    .sort();

describe('requireWithCodeCache', () => {
  it('runs the bundle as CommonJS, writes its cache only when asked, private, then uses it', () => {
    const dist = temp();
    const cache = join(temp(), 'appliance-admin');
    const file = bundle(dist, 'dashboard-AAAA1111.cjs', 41);

    const first = requireWithCodeCache<Exports>(file, cache);
    expect(first.exports.answer()).toBe(41);
    expect(first.exports.name).toBe(file);
    expect(first.cache).toBe('none');
    expect(cacheFiles(cache)).toEqual([]);
    first.save();
    first.save();
    const [written] = cacheFiles(cache);
    expect(written).toBe(`dashboard-AAAA1111.cjs-${process.version}-${process.arch}.v8cache`);
    expect(statSync(join(cache, written)).mode & 0o777).toBe(0o600);
    expect(statSync(cache).mode & 0o777).toBe(0o700);

    expect(loadInChild(file, cache)).toEqual({ cache: 'used', answer: 41 });
  });

  it('refuses a cache V8 does not accept, runs anyway, and replaces it', () => {
    const dist = temp();
    const cache = join(temp(), 'c');
    const file = bundle(dist, 'dashboard-BBBB2222.cjs', 7);
    requireWithCodeCache<Exports>(file, cache).save();
    const [name] = cacheFiles(cache);
    const good = readFileSync(join(cache, name));
    writeFileSync(join(cache, name), Buffer.alloc(good.length, 0x5a), { mode: 0o600 });

    expect(loadInChild(file, cache, true)).toEqual({ cache: 'rejected', answer: 7 });
    expect(loadInChild(file, cache)).toEqual({ cache: 'used', answer: 7 });
  });

  it('uses no cache from a directory or file others can write to, and writes none there', () => {
    const dist = temp();
    const file = bundle(dist, 'dashboard-CCCC3333.cjs', 1);
    const open = temp();
    chmodSync(open, 0o777);
    const a = requireWithCodeCache<Exports>(file, open);
    expect(a.cache).toBe('off');
    a.save();
    expect(cacheFiles(open)).toEqual([]);

    const mine = join(temp(), 'c');
    requireWithCodeCache<Exports>(file, mine).save();
    const [name] = cacheFiles(mine);
    chmodSync(join(mine, name), 0o666);
    const b = requireWithCodeCache<Exports>(file, mine);
    expect(b.cache).toBe('none');
    expect(b.exports.answer()).toBe(1);
  });

  it('reads a bundle that is not all ASCII as UTF-8, with or without its cache', () => {
    const dist = temp();
    const cache = join(temp(), 'c');
    const file = join(dist, 'dashboard-CCCC3333.cjs');
    writeFileSync(file, "exports.text = 'Café 東京 ✓';\n");
    const first = requireWithCodeCache<{ text: string }>(file, cache);
    expect(first.exports.text).toBe('Café 東京 ✓');
    first.save();
    expect(loadInChild(file, cache)).toEqual({ cache: 'used', text: 'Café 東京 ✓' });
  });

  it('keeps the caches of the three newest builds of a bundle', () => {
    const dist = temp();
    const cache = join(temp(), 'c');
    const names = [
      'dashboard-OLD00001.cjs',
      'dashboard-OLD00002.cjs',
      'dashboard-OLD00003.cjs',
      'dashboard-NEW00004.cjs',
    ];
    names.forEach((n, i) => {
      requireWithCodeCache<Exports>(bundle(dist, n, i), cache).save();
      const [written] = cacheFiles(cache).filter((f) => f.startsWith(n));
      utimesSync(join(cache, written), 1_700_000_000 + i * 100, 1_700_000_000 + i * 100);
    });
    expect(cacheFiles(cache).map((f) => f.split('.cjs-')[0])).toEqual([
      'dashboard-NEW00004',
      'dashboard-OLD00002',
      'dashboard-OLD00003',
    ]);
  });

  it('is off with NODE_DISABLE_COMPILE_CACHE, and follows XDG_CACHE_HOME', () => {
    expect(defaultCacheDir({ NODE_DISABLE_COMPILE_CACHE: '1', XDG_CACHE_HOME: '/x' })).toBeNull();
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/appliance-admin');
  });
});
