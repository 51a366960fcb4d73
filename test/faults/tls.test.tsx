import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { parseDashboardArgs } from '../../src/cli/dashboard-args.js';
import { isLoopbackHost } from '../../src/client/transport-policy.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { makeCertificates } from '../helpers/tls.js';
import { issueToken, start, type ChildServer } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';
import { startHostile } from '../helpers/hostile-server.js';

/**
 * Issue 5, point 8 (dashboard half): the dashboard verifies the appliance's certificate
 * (--ca-file for its own CA) and refuses plain http beyond loopback unless --insecure-http is
 * given, which the header then shows.
 */
let tlsServer: ChildServer;
let caFile: string;
let caPem: string;
let token: string;
let d: DashboardHarness | undefined;

beforeAll(async () => {
  const root = tempDir('aa-faults-tls');
  const pems = await makeCertificates('appliance-admin faults CA');
  caPem = pems.ca;
  caFile = join(root, 'ca.pem');
  writeFileSync(caFile, pems.ca);
  writeFileSync(join(root, 'server.crt'), pems.cert);
  writeFileSync(join(root, 'server.key'), pems.key, { mode: 0o600 });
  const dataDir = join(root, 'data');
  token = await issueToken(dataDir, 'auditor', 'tls-auditor');
  tlsServer = await start(dataDir, {
    config: fixtureConfig(root),
    args: ['--tls-cert', join(root, 'server.crt'), '--tls-key', join(root, 'server.key')],
  });
}, 60_000);
afterAll(async () => {
  await d?.unmount();
  await tlsServer?.stop();
});

const header = (f: string) => f.split('\n').slice(0, 2).join('\n');
const oneLine = (f: string) => f.replace(/\s+/g, ' ');

describe('the appliance certificate', () => {
  it('without --ca-file: a certificate error in plain words, no crash, nothing else', async () => {
    d = renderDashboard({ url: tlsServer.url, token, screen: 'channels', refreshMs: 300 });
    const f = await d.waitFor(
      (x) => oneLine(x).includes("✕ cannot connect: the appliance's TLS certificate is not trusted"),
      'a certificate error',
    );
    expect(oneLine(f)).toMatch(
      /unable to verify the first certificate \(if the appliance uses its own CA, give it with --ca-file\)/,
    );
    expect(header(f)).toMatch(/✕ DISCONNECTED · retry in \d+ s/);
    expect(f).not.toContain('Web chat');
    expect(d.crashed()).toBeNull();
    await d.press('tab');
    await d.waitForText('[keys]');
    await d.unmount();
    d = undefined;
  });

  it('with --ca-file: verified, connected, data shown', async () => {
    // the CLI reads the file; the dashboard gets its PEM
    const parsed = parseDashboardArgs(
      ['--url', tlsServer.url, '--token-file', writeTokenFile(token), '--ca-file', caFile],
      {},
    );
    expect(parsed).not.toBe('help');
    const ca = (parsed as { ca?: Buffer }).ca!;
    expect(ca.toString()).toBe(caPem);
    d = renderDashboard({ url: tlsServer.url, token, ca, screen: 'channels', refreshMs: 300 });
    const f = await d.waitFor((x) => x.includes('Web chat') && x.includes('● connected'), 'connected over TLS');
    expect(header(f)).toContain(`appliance-admin  ${tlsServer.url}`);
    expect(header(f)).toContain('tls-auditor (auditor)');
    expect(f).not.toContain('INSECURE');
    await d.unmount();
    d = undefined;
  });
});

describe('plain http', () => {
  const env = { APPLIANCE_ADMIN_TOKEN: 'aat_x' };

  it('is refused beyond loopback with a clear message, allowed to loopback and with --insecure-http', () => {
    for (const url of [
      'http://192.0.2.10:8080',
      'http://appliance.example',
      'http://[fd00::2]:8443/v1/admin',
      'http://10.0.0.1',
      'http://127.0.0.1.nip.io',
    ]) {
      expect(() => parseDashboardArgs(['--url', url], env), url).toThrow(
        /^refusing plain http to .+: the token would cross the network unencrypted\. Use https:\/\/.+ \(with --ca-file for the appliance's own CA\), or accept the risk with --insecure-http$/,
      );
      expect(parseDashboardArgs(['--url', url, '--insecure-http'], env)).toMatchObject({ url, insecureHttp: true });
    }
    for (const url of [
      'http://127.0.0.1:8080',
      'http://127.8.9.10',
      'http://[::1]:8080',
      'http://localhost:8080',
      'http://LOCALHOST.',
      'http://[::ffff:127.0.0.1]:1',
      'https://appliance.example',
    ]) {
      expect(parseDashboardArgs(['--url', url], env), url).toMatchObject({ url });
    }
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('[::2]')).toBe(false);
    expect(isLoopbackHost('localhost.evil.example')).toBe(false);
  });

  it('the CLI says so at start, before reading the token or sending anything: the dashboard, get and export alike', async () => {
    const runs = await Promise.all(
      [[], ['get', 'channels'], ['export', 'audit', '-o', join(tempDir('aa-export'), 'x.csv')]].map((cmd) =>
        runCli([...cmd, '--url', 'http://192.0.2.10:9'], { env: { APPLIANCE_ADMIN_TOKEN: 'aat_never-echoed-either' } }),
      ),
    );
    for (const r of runs) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'appliance-admin: refusing plain http to 192.0.2.10:9: the token would cross the network unencrypted',
      );
      expect(r.stderr).toContain('--insecure-http');
      expect(r.stderr).not.toContain('aat_never-echoed-either');
    }
  });

  it('with --insecure-http to a host that is not loopback: works, and the header says INSECURE HTTP', async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    let real: TestServer | undefined;
    let front: Awaited<ReturnType<typeof startHostile>> | undefined;
    try {
      real = await startTestServer();
      // a front for the real server on this machine's network address, not loopback
      front = external ? await startHostile({ upstream: real.url, host: external }) : undefined;
      const url = front?.url ?? 'http://192.0.2.123:9';
      expect(parseDashboardArgs(['--url', url, '--insecure-http'], env)).toMatchObject({ insecureHttp: true });
      d = renderDashboard({ url, token: real.tokens.it_admin, screen: 'channels', refreshMs: 300, timeoutMs: 500 });
      const f = await d.waitFor(
        (x) => header(x).includes('INSECURE HTTP') && (!front || x.includes('Web chat')),
        'the badge',
      );
      expect(header(f).split('\n')[0]).toMatch(
        new RegExp(`appliance-admin  ${url.replace(/[.[\]]/g, '\\$&')}\\s+INSECURE HTTP`),
      );
      // and not on loopback, where plain http is fine
      await d.unmount();
      d = renderDashboard({ server: real, screen: 'channels' });
      await d.waitForText('Web chat');
      expect(d.frame()).not.toContain('INSECURE');
    } finally {
      await d?.unmount();
      d = undefined;
      await front?.close();
      await real?.close();
    }
  });
});
