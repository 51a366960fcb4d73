import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { constants as http2Constants } from 'node:http2';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
// @ts-expect-error: a plain .mjs build script without types
import { DASHBOARD_BUNDLE_OPTIONS, HTTP2_CONSTANTS } from '../../scripts/bundle-options.mjs';

/**
 * The dashboard's CommonJS bundle settings (scripts/bundle-options.mjs): the parts that run only
 * later (a sign-in asked again from the dashboard: openid-client, the QR code from node_modules)
 * work as CommonJS, and yoga-layout without its top-level await is ready once yogaReady is.
 */
// inside the repository, so that the bundle finds node_modules as dist/ does
const dir = mkdtempSync(join(process.cwd(), 'node_modules', '.aa-dashboard-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundleFile(contents: string): Promise<{ file: string; text: string }> {
  const out = await build({ ...DASHBOARD_BUNDLE_OPTIONS, stdin: { contents, resolveDir: join(process.cwd(), 'src/app'), loader: 'ts' }, write: false, logLevel: 'silent' });
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
    const m = await bundle("export const load = () => import('../auth-session/index.js');");
    const { renderQr, login } = await (m.load as () => Promise<{ renderQr(t: string, o: object): string[]; login: unknown }>)();
    expect(typeof login).toBe('function');
    const qr = renderQr('https://idp.example/device?code=ABCD', { color: false });
    expect(qr.length).toBeGreaterThan(10);
    expect(qr.join('')).toMatch(/[█▀▄]/);
  });

  it('lays out with yoga once yogaReady resolved (no top-level await in CommonJS)', async () => {
    const m = await bundle("import Yoga from 'yoga-layout'; export { yogaReady } from './yoga-ready.js'; export { Yoga };");
    await m.yogaReady;
    const Yoga = m.Yoga as { Node: { create(): { setWidth(n: number): void; calculateLayout(): void; getComputedWidth(): number; free(): void } } };
    const node = Yoga.Node.create();
    node.setWidth(42);
    node.calculateLayout();
    expect(node.getComputedWidth()).toBe(42);
    node.free();
  });

  it('loads without the built-ins its first frame does not need, and is ASCII (one-byte source)', async () => {
    const { file, text } = await bundleFile("export * from './start.js';");
    // a fresh process: this one has loaded half of Node already
    const loaded = JSON.parse(execFileSync(process.execPath, ['-e', `require(${JSON.stringify(file)}); process.stdout.write(JSON.stringify(process.moduleLoadList))`], { encoding: 'utf8' })) as string[];
    const builtins = new Set(loaded.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length)));
    expect(builtins.has('http')).toBe(true); // the check sees what the bundle loads
    for (const lazy of ['http2', 'tls', 'crypto', 'child_process', 'fs/promises', 'zlib']) expect(builtins.has(lazy), lazy).toBe(false);
    expect(text).toMatch(/^[\x00-\x7f]*$/);
  });

  it("gives undici's HTTP/2 client Node's own HTTP/2 constants", () => {
    for (const [name, value] of Object.entries(HTTP2_CONSTANTS as Record<string, unknown>)) expect(http2Constants[name as keyof typeof http2Constants], name).toBe(value);
  });
});
