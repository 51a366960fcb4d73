import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { OidcPeer } from '../helpers/oidc.js';
import type { TestServer } from '../helpers/server.js';
import { CLIENT_ID, sessionPath, signIn, startAppliance, startProvider, stored } from '../session/world.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { ensureBuilt } from '../helpers/child-server.js';

// the built CLI (bin/appliance-admin.cjs), as a user runs it
beforeAll(ensureBuilt, 180_000);

/**
 * `login --url` sends the new sign-in's token to the appliance (GET /session): the same plain-http
 * rule as get, export and the dashboard, checked before anything is signed in or sent.
 */
let op: OidcPeer;
let s: TestServer;

beforeAll(async () => {
  op = await startProvider();
  s = await startAppliance(op);
});
afterAll(async () => {
  await Promise.all([s?.close(), op?.close()]);
});

const envFor = (file: string) => ({ XDG_CONFIG_HOME: dirname(dirname(file)) });
const refusal = (host: string) =>
  `appliance-admin: refusing plain http to ${host}: the token would cross the network unencrypted. Use https://${host} (with --ca-file for the appliance's own CA), or accept the risk with --insecure-http\n`;

describe('appliance-admin login --url over plain http', () => {
  it('refuses an http appliance other than this machine before asking the identity provider anything', async () => {
    const file = sessionPath();
    const before = op.requests();
    const r = await runCli(
      ['login', '--issuer', op.issuer, '--client-id', CLIENT_ID, '--no-qr', '--url', 'http://203.0.113.9:8080'],
      { env: envFor(file), timeoutMs: 8000 },
    );
    expect(r).toEqual({ code: 2, stdout: '', stderr: refusal('203.0.113.9:8080') });
    expect(op.requests()).toBe(before);
    expect(existsSync(file)).toBe(false);
  });

  it("signing in again with the stored settings refuses the stored sign-in's http appliance too; so does get with that sign-in", async () => {
    const file = sessionPath();
    await signIn(op, 'alice', file, { applianceUrl: 'http://203.0.113.9:8080' });
    const kept = stored(file);
    const before = op.requests();
    const again = await runCli(['login', '--no-qr'], { env: envFor(file), timeoutMs: 8000 });
    expect(again).toEqual({ code: 2, stdout: '', stderr: refusal('203.0.113.9:8080') });
    expect(op.requests()).toBe(before);
    expect(stored(file)).toEqual(kept);
    const get = await runCli(['get', 'connectors', '--json'], { env: envFor(file) });
    expect(get).toEqual({ code: 2, stdout: '', stderr: refusal('203.0.113.9:8080') });
  });

  it('--insecure-http lets it through: signed in, the role asked; later commands with that sign-in need --insecure-http too', async () => {
    const file = sessionPath();
    // 0.0.0.0 is not loopback to the policy, yet a connection to it reaches this machine's 127.0.0.1
    const url = `http://0.0.0.0:${new URL(s.url).port}`;
    const run = spawnCli(
      [
        'login',
        '--issuer',
        op.issuer,
        '--client-id',
        CLIENT_ID,
        '--resource',
        'urn:appliance-admin',
        '--no-qr',
        '--url',
        url,
        '--insecure-http',
      ],
      { env: envFor(file) },
    );
    const complete = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no sign-in prompt: ${run.stderr()}`)), 10_000);
      run.child.stderr!.on('data', () => {
        const m = /\(or open (\S+), which has the code filled in\)/.exec(run.stderr());
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    await op.approveDevice(complete, 'alice');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `Signed in as Alice Admin (alice) at ${op.issuer}.\nThe appliance ${url} gives you the role it_admin.\n`,
    );
    expect(stored(file).appliance_url).toBe(url);

    const refused = await runCli(['get', 'connectors', '--json'], { env: envFor(file) });
    expect(refused).toEqual({ code: 2, stdout: '', stderr: refusal(`0.0.0.0:${new URL(s.url).port}`) });
    const allowed = await runCli(['get', 'connectors', '--json', '--insecure-http'], { env: envFor(file) });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout)).toEqual((await s.call('GET', '/connectors?limit=500')).json);
  });

  it('a malformed --url is refused the way get refuses it, before signing in', async () => {
    const file = sessionPath();
    const before = op.requests();
    const r = await runCli(
      ['login', '--issuer', op.issuer, '--client-id', CLIENT_ID, '--url', 'http://admin:pw@127.0.0.1:8080'],
      { env: envFor(file), timeoutMs: 8000 },
    );
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'appliance-admin: put credentials in --token-file, not in the URL\n',
    });
    expect(op.requests()).toBe(before);
  });

  it('login --help names --insecure-http', async () => {
    const r = await runCli(['login', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--insecure-http +allow plain http:\/\/ to an appliance other than this machine/);
  });
});
