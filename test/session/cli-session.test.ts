import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OidcPeer } from '../helpers/oidc.js';
import type { TestServer } from '../helpers/server.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { revokeRefreshToken, sessionPath, signIn, startAppliance, startProvider, stored } from './world.js';
import { writeSession } from '../../src/client/session/store.js';

let op: OidcPeer;
let s: TestServer;

beforeAll(async () => {
  [op] = await Promise.all([startProvider(), ensureBuilt()]);
  s = await startAppliance(op);
});
afterAll(async () => {
  await Promise.all([s?.close(), op?.close()]);
});

const envFor = (file: string) => ({ XDG_CONFIG_HOME: dirname(dirname(file)) });

// The built CLI as a child, with the stored sign-in in a temporary XDG_CONFIG_HOME.
describe.concurrent('get and export with the stored sign-in (no token option)', () => {
  it('get connectors --json uses the sign-in and its appliance (no --url either)', async () => {
    const file = sessionPath();
    await signIn(op, 'aude', file, { applianceUrl: s.url });
    const r = await runCli(['get', 'connectors', '--json'], { env: envFor(file) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const server = await s.call('GET', '/connectors?limit=500');
    expect(JSON.parse(r.stdout)).toEqual(server.json);
  });

  it('export audit writes the file with the sign-in of an auditor, to the --url given', async () => {
    const file = sessionPath();
    await signIn(op, 'aude', file);
    const dest = join(tempDir('aa-export'), 'audit.jsonl');
    const r = await runCli(['export', 'audit', '--format', 'jsonl', '-o', dest, '--url', s.url], { env: envFor(file) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/exported \d+ audit rows? \(jsonl/);
    expect(readFileSync(dest, 'utf8').trim().split('\n').length).toBeGreaterThan(0);
  });

  it('without a token or a stored sign-in, names the three ways to authenticate', async () => {
    const r = await runCli(['get', 'connectors', '--json', '--url', s.url], {
      env: { XDG_CONFIG_HOME: tempDir('aa-cfg') },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'appliance-admin: no credential: give the token with --token-file FILE or the APPLIANCE_ADMIN_TOKEN variable, or sign in with: appliance-admin login --issuer URL --client-id ID [--url APPLIANCE]\n',
    );
  });

  it('an expired sign-in says to run appliance-admin login (no prompt in a one-shot command)', async () => {
    const file = sessionPath();
    await signIn(op, 'alice', file, { applianceUrl: s.url });
    expect(await revokeRefreshToken(op, file)).toBe(true);
    writeSession(file, { ...stored(file), obtained_at: Date.now() - 700_000, expires_at: Date.now() - 100_000 });
    const r = await runCli(['get', 'connectors', '--json'], { env: envFor(file) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'appliance-admin: get connectors failed: your sign-in has expired; run appliance-admin login again (the identity provider refused to renew it (invalid_grant))\n',
    );
  });
});
