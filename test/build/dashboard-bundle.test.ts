import { isAscii } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
// @ts-expect-error: a plain .mjs build script without types
import { DASHBOARD_BUNDLE_OPTIONS } from '../../scripts/bundle-options.mjs';

/**
 * The dashboard's CommonJS bundle settings (scripts/bundle-options.mjs): the parts that run only
 * later (a sign-in asked again from the dashboard: openid-client, the QR code from node_modules)
 * work as CommonJS, and yoga-layout without its top-level await is ready once yogaReady is.
 */
// inside the repository, so that the bundle finds node_modules as dist/ does
const dir = mkdtempSync(join(process.cwd(), 'node_modules', '.aa-dashboard-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundleFile(contents: string): Promise<{ file: string; text: string }> {
  const out = await build({
    ...DASHBOARD_BUNDLE_OPTIONS,
    // qrcode and yaml from node_modules here: dist/ has its own bundles of them in vendor/ (scripts/build.mjs)
    plugins: DASHBOARD_BUNDLE_OPTIONS.plugins.filter((p: { name: string }) => p.name !== 'vendored'),
    stdin: { contents, resolveDir: join(process.cwd(), 'src/dashboard/shell'), loader: 'ts' },
    write: false,
    logLevel: 'silent',
  });
  expect(out.warnings).toEqual([]);
  const file = join(dir, `b${Math.random().toString(36).slice(2)}.cjs`);
  const text = out.outputFiles![0].text;
  writeFileSync(file, text);
  return { file, text };
}

async function bundle(contents: string): Promise<Record<string, unknown>> {
  const { file } = await bundleFile(contents);
  return createRequire(file)(file) as Record<string, unknown>;
}

describe("the dashboard's CommonJS bundle", () => {
  it('runs the sign-in parts as CommonJS: the QR code and the identity provider client', async () => {
    const m = await bundle("export const load = () => import('../../client/session/index.js');");
    const { renderQr, login } = await (
      m.load as () => Promise<{ renderQr(t: string, o: object): string[]; login: unknown }>
    )();
    expect(typeof login).toBe('function');
    const qr = renderQr('https://idp.example/device?code=ABCD', { color: false });
    expect(qr.length).toBeGreaterThan(10);
    expect(qr.join('')).toMatch(/[█▀▄]/);
  });

  it('lays out with yoga once yogaReady resolved (no top-level await in CommonJS)', async () => {
    const m = await bundle(
      "import Yoga from 'yoga-layout'; export { yogaReady } from '../terminal/yoga-ready.js'; export { Yoga };",
    );
    await m.yogaReady;
    const Yoga = m.Yoga as {
      Node: {
        create(): { setWidth(n: number): void; calculateLayout(): void; getComputedWidth(): number; free(): void };
      };
    };
    const node = Yoga.Node.create();
    node.setWidth(42);
    node.calculateLayout();
    expect(node.getComputedWidth()).toBe(42);
    node.free();
  });

  it('loads without the built-ins its first frame does not need, and is ASCII (one-byte source)', async () => {
    const { file, text } = await bundleFile("export * from '../../cli/dashboard-bundle.js';");
    // a fresh process: this one has loaded half of Node already
    const loaded = JSON.parse(
      execFileSync(
        process.execPath,
        ['-e', `require(${JSON.stringify(file)}); process.stdout.write(JSON.stringify(process.moduleLoadList))`],
        { encoding: 'utf8' },
      ),
    ) as string[];
    const builtins = new Set(
      loaded.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length)),
    );
    expect(builtins.has('net')).toBe(true); // the check sees what the bundle loads
    // (undici's client loads http, http2, tls and crypto: docs/dependency-edits.md, the edits dropped in issue 38)
    for (const lazy of ['fs/promises', 'zlib']) expect(builtins.has(lazy), lazy).toBe(false);
    expect(isAscii(Buffer.from(text))).toBe(true);
    // it runs from V8's code cache (src/cli/code-cache.ts), where Node 20 has no loader for a
    // dynamic import: every import() must be bundled (esbuild then leaves none)
    expect(text.match(/[^\w$.]import\(.{0,40}/g) ?? []).toEqual([]);
  });

  it('copies the exports of React and node:process once for all their importers, as each saw them', async () => {
    // two ES modules importing the same CommonJS module get one namespace object, not one each
    const at = join(dir, `interop-${Math.random().toString(36).slice(2)}`);
    mkdirSync(at);
    writeFileSync(join(at, 'package.json'), '{"type":"module"}');
    const importer = (name: string) =>
      `import React, { useState } from 'react'; import * as ReactNs from 'react'; import process, { env } from 'node:process'; import * as processNs from 'process'; export const ${name} = { React, useState, ReactNs, process, env, processNs };`;
    writeFileSync(join(at, 'a.js'), importer('a'));
    writeFileSync(join(at, 'b.js'), importer('b'));
    const { file } = await bundleFile(
      `export { a } from ${JSON.stringify(join(at, 'a.js'))}; export { b } from ${JSON.stringify(join(at, 'b.js'))};`,
    );
    type Seen = {
      React: Record<string, unknown>;
      useState: unknown;
      ReactNs: Record<string, unknown>;
      process: NodeJS.Process;
      env: unknown;
      processNs: Record<string, unknown>;
    };
    const { a, b } = createRequire(file)(file) as { a: Seen; b: Seen };
    expect(a.ReactNs).toBe(b.ReactNs);
    expect(a.processNs).toBe(b.processNs);
    for (const seen of [a, b]) {
      expect(seen.ReactNs.default).toBe(seen.React);
      expect(seen.useState).toBe(seen.React.useState);
      expect(Object.keys(seen.ReactNs).sort()).toEqual([...Object.keys(seen.React), 'default'].sort());
      for (const key of Object.keys(seen.React)) expect(seen.ReactNs[key], key).toBe(seen.React[key]);
      expect(seen.process).toBe(process);
      expect(seen.env).toBe(process.env);
      expect(seen.processNs.default).toBe(process);
      expect(seen.processNs.env).toBe(process.env);
      expect(seen.processNs.argv).toBe(process.argv);
    }
  });
});
