import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { ensureBuilt } from '../helpers/child-server.js';

// the built CLI (bin/appliance-admin.cjs), as a user runs it
beforeAll(ensureBuilt, 180_000);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

describe('export with a --url the client refuses', () => {
  it('exit 2 leaves no empty FILE behind, so the retry with the right URL is not blocked', async () => {
    const token = writeTokenFile(s.tokens.auditor);
    const file = join(tempDir('aa-export-url'), 'audit.csv');
    for (const [url, why] of [
      ['http://admin:pw@127.0.0.1:8080', 'put credentials in --token-file, not in the URL'],
      ['notaurl', 'not a URL: notaurl'],
      ['ftp://127.0.0.1/', 'the URL must be http or https, got ftp:'],
    ]) {
      const r = await runCli(['export', 'audit', '-o', file, '--url', url, '--token-file', token]);
      expect(r, url).toEqual({ code: 2, stdout: '', stderr: `appliance-admin: ${why}\n` });
      expect(existsSync(file), url).toBe(false);
    }
    const retry = await runCli(['export', 'audit', '-o', file, '--url', s.url, '--token-file', token]);
    expect(retry.code, retry.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^id,at,actor\.subject/);
  });
});
