import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
// @ts-expect-error: a plain .mjs build script without types
import { DASHBOARD_BUNDLE_OPTIONS } from '../../scripts/bundle-options.mjs';

/**
 * src/client/undici-client.ts takes undici's Client from undici's own modules, not its index
 * (docs/dependency-edits.md, undici-deep-import): these are undici's private paths, so this fails
 * when an undici upgrade moves them or changes what its index does with them.
 */
const DEEP = {
  client: 'undici/lib/dispatcher/client.js',
  dispatcher: 'undici/lib/dispatcher/dispatcher.js',
  request: 'undici/lib/api/api-request.js',
};

describe("undici's modules that src/client/undici-client.ts imports", () => {
  it("are the ones undici's index exports, and the index adds request() as the client does", () => {
    // a fresh process: the index assigns request() to Dispatcher.prototype when it loads
    const script = `
      const Client = require(${JSON.stringify(DEEP.client)});
      const Dispatcher = require(${JSON.stringify(DEEP.dispatcher)});
      const request = require(${JSON.stringify(DEEP.request)});
      const before = typeof Dispatcher.prototype.request;
      const undici = require('undici');
      process.stdout.write(JSON.stringify({
        before,
        client: undici.Client === Client,
        dispatcher: undici.Dispatcher === Dispatcher,
        request: undici.Dispatcher.prototype.request === request,
        clientIsDispatcher: Client.prototype instanceof Dispatcher,
      }));`;
    const seen = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as object;
    expect(seen).toEqual({
      before: 'undefined',
      client: true,
      dispatcher: true,
      request: true,
      clientIsDispatcher: true,
    });
  });

  it('keep the dashboard bundle off the index (fetch, WebSocket, caches, mocks)', async () => {
    const out = await build({
      ...DASHBOARD_BUNDLE_OPTIONS,
      stdin: {
        contents: "export { Client } from './src/client/undici-client.js';",
        resolveDir: process.cwd(),
        loader: 'ts',
      },
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(out.metafile!.inputs).map((p) => p.replaceAll('\\', '/'));
    for (const path of Object.values(DEEP))
      expect(
        inputs.some((i) => i.endsWith(`node_modules/${path}`)),
        path,
      ).toBe(true);
    expect(inputs.filter((i) => /node_modules\/undici\/index\.js$/.test(i))).toEqual([]);
    const indexOnly = /node_modules\/undici\/lib\/(web\/fetch\/index|web\/websocket\/|mock\/|cache\/)/;
    expect(inputs.filter((i) => indexOnly.test(i))).toEqual([]);
  });

  it('makes a client whose request() works', async () => {
    const { createServer } = await import('node:http');
    const { Client } = await import('../../src/client/undici-client.js');
    const server = createServer((_, res) => res.end('ok')).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    const client = new Client(`http://127.0.0.1:${port}`);
    try {
      const res = await client.request({ path: '/', method: 'GET' });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe('ok');
    } finally {
      await client.close();
      server.close();
    }
  });
});
