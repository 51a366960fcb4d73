import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OidcPeer } from '../helpers/oidc.js';
import type { TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/fixtures.js';
import { ACCOUNTS, AUDIENCE, CLIENT_ID, sessionPath, signIn, startAppliance, startProvider, stored } from './world.js';
import {
  deviceLogin,
  DeviceLoginError,
  getAccessToken,
  IdentityProviderUnavailableError,
  type DevicePrompt,
} from '../../src/client/session/index.js';
import { main } from '../../src/cli/main.js';

let op: OidcPeer;
let s: TestServer;

beforeAll(async () => {
  op = await startProvider();
  s = await startAppliance(op);
});
afterAll(async () => {
  await Promise.all([s?.close(), op?.close()]);
});

// Each case has its own session file and device code, so they run side by side (polls wait 1 s).
describe.concurrent('device sign-in against a real OpenID provider and the real appliance', () => {
  it('gives each account the role its group maps to; an auditor may read but gets 403 on a mutation', async () => {
    const files = { alice: sessionPath(), olga: sessionPath(), aude: sessionPath() };
    const who = await Promise.all([
      signIn(op, 'alice', files.alice),
      signIn(op, 'olga', files.olga),
      signIn(op, 'aude', files.aude),
    ]);
    expect(who.map((w) => [w.subject, w.name])).toEqual([
      ['alice', 'Alice Admin'],
      ['olga', 'Olga Owner'],
      ['aude', 'Aude Auditor'],
    ]);
    const expected = { alice: 'it_admin', olga: 'app_owner', aude: 'auditor' } as const;
    for (const [account, file] of Object.entries(files) as [keyof typeof files, string][]) {
      const token = await getAccessToken({ file, refreshMarginMs: 0 });
      expect(token).toBe(stored(file).access_token);
      const res = await s.call('GET', '/session', { token });
      expect(res.status, account).toBe(200);
      expect(res.json).toMatchObject({ subject: account, role: expected[account] });
    }
    const body = { provider: 'oidc', issuer_url: op.issuer };
    const asAdmin = await s.call('POST', '/identity/test', {
      token: await getAccessToken({ file: files.alice, refreshMarginMs: 0 }),
      body,
    });
    expect(asAdmin.status).toBe(200);
    const asAuditor = await s.call('POST', '/identity/test', {
      token: await getAccessToken({ file: files.aude, refreshMarginMs: 0 }),
      body,
    });
    expect(asAuditor.status).toBe(403);
    expect(asAuditor.json.code).toBe('SVC-ADMIN-403');
  });

  it('stores the session 0600 in a 0700 folder, with who signed in and no id token', async () => {
    const file = sessionPath();
    await signIn(op, 'alice', file, { applianceUrl: s.url });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    const session = stored(file);
    expect(session).toMatchObject({
      version: 1,
      issuer: op.issuer,
      client_id: CLIENT_ID,
      resource: AUDIENCE,
      subject: 'alice',
      name: 'Alice Admin',
      appliance_url: s.url,
    });
    expect(session.access_token.split('.')).toHaveLength(3);
    expect(session.refresh_token).toBeTruthy();
    expect(session.expires_at).toBeGreaterThan(Date.now());
    expect(Object.keys(session)).not.toContain('id_token');
  });

  it('shows the verification page, the code, and the page with the code filled in', async () => {
    let prompt: DevicePrompt | undefined;
    await deviceLogin({
      issuer: op.issuer,
      clientId: CLIENT_ID,
      resource: AUDIENCE,
      onPrompt: async (p) => {
        prompt = p;
        await op.approveDevice(p.verificationUri, 'olga', { userCode: p.userCode });
      },
    });
    expect(prompt!.verificationUri).toBe(`${op.issuer}/device`);
    expect(prompt!.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(prompt!.verificationUriComplete).toBe(`${op.issuer}/device?user_code=${prompt!.userCode}`);
    expect(prompt!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 500_000);
  });

  it('waits the announced interval between polls and 5 s more after each slow_down', async () => {
    const slow = await startProvider();
    try {
      const waits: number[] = [];
      slow.slowDownNext(2);
      const tokens = await deviceLogin({
        issuer: slow.issuer,
        clientId: CLIENT_ID,
        resource: AUDIENCE,
        onPrompt: (p) => slow.approveDevice(p.verificationUriComplete!, 'alice'),
        wait: async (ms) => void waits.push(ms),
      });
      expect(tokens.accessToken).toBeTruthy();
      expect(waits).toEqual([1000, 6000, 11000]);
      expect(slow.tokenRequests('urn:ietf:params:oauth:grant-type:device_code')).toBe(3);
    } finally {
      await slow.close();
    }
  });

  it('keeps polling while the approval is pending, then returns the tokens', async () => {
    let approved = false;
    let polls = 0;
    const tokens = await deviceLogin({
      issuer: op.issuer,
      clientId: CLIENT_ID,
      resource: AUDIENCE,
      onPrompt: (p) => {
        setTimeout(() => void op.approveDevice(p.verificationUriComplete!, 'aude').then(() => (approved = true)), 1500);
      },
      onPoll: () => polls++,
    });
    expect(approved).toBe(true);
    expect(polls).toBeGreaterThanOrEqual(2);
    expect((await s.call('GET', '/session', { token: tokens.accessToken })).json.role).toBe('auditor');
  });

  it('waits 5 s between polls when the provider announces no interval', async () => {
    const quiet = await startProvider({ deviceInterval: undefined });
    try {
      const waits: number[] = [];
      await deviceLogin({
        issuer: quiet.issuer,
        clientId: CLIENT_ID,
        onPrompt: (p) => quiet.approveDevice(p.verificationUriComplete!, 'alice'),
        wait: async (ms) => void waits.push(ms),
      });
      expect(waits).toEqual([5000]);
    } finally {
      await quiet.close();
    }
  });

  it('stops with a plain message when the person declines, and stores nothing', async () => {
    const file = sessionPath();
    const err = await signInDenied(file);
    expect(err).toBeInstanceOf(DeviceLoginError);
    expect(err.kind).toBe('denied');
    expect(err.message).toBe('the sign-in was declined at the identity provider; nothing was stored');
    expect(existsSync(file)).toBe(false);
  });

  it('stops with a plain message when the code expires unapproved', async () => {
    const brief = await startProvider({ deviceCodeTTL: 1 });
    try {
      const started = Date.now();
      const err = await deviceLogin({ issuer: brief.issuer, clientId: CLIENT_ID, onPrompt: () => {} }).catch(
        (e: DeviceLoginError) => e,
      );
      expect(err).toBeInstanceOf(DeviceLoginError);
      expect((err as DeviceLoginError).kind).toBe('expired');
      expect((err as Error).message).toMatch(/^the sign-in code expired before it was approved/);
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      await brief.close();
    }
  });

  it('stops when cancelled', async () => {
    const ac = new AbortController();
    const err = await deviceLogin({
      issuer: op.issuer,
      clientId: CLIENT_ID,
      signal: ac.signal,
      onPrompt: () => void setTimeout(() => ac.abort(), 50),
    }).catch((e) => e);
    expect(err).toBeInstanceOf(DeviceLoginError);
    expect(err.kind).toBe('cancelled');
  });

  it('refuses a plain-http issuer that is not on loopback, before sending anything', async () => {
    const err = await deviceLogin({ issuer: 'http://idp.example.com', clientId: CLIENT_ID, onPrompt: () => {} }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(DeviceLoginError);
    expect(err.message).toMatch(/issuer must be an https URL/);
  });

  it('says the issuer looks wrong when discovery answers 404, and names an unreachable one', async () => {
    const wrong = await deviceLogin({ issuer: `${op.issuer}/nope`, clientId: CLIENT_ID, onPrompt: () => {} }).catch(
      (e) => e,
    );
    expect(wrong).toBeInstanceOf(DeviceLoginError);
    expect(wrong.message).toBe(
      `cannot read the identity provider's configuration at ${op.issuer}/nope: it answered HTTP 404 (is the issuer URL right?)`,
    );
    const gone = await deviceLogin({ issuer: 'http://127.0.0.1:9', clientId: CLIENT_ID, onPrompt: () => {} }).catch(
      (e) => e,
    );
    expect(gone).toBeInstanceOf(IdentityProviderUnavailableError);
    expect(gone.message).toMatch(/^cannot read the identity provider's configuration at http:\/\/127\.0\.0\.1:9: /);
  });

  async function signInDenied(file: string) {
    const { login } = await import('../../src/client/session/index.js');
    return login({
      issuer: op.issuer,
      clientId: CLIENT_ID,
      file,
      onPrompt: (p) => op.approveDevice(p.verificationUriComplete!, 'alice', { deny: true }),
    }).catch((e: DeviceLoginError) => e) as Promise<DeviceLoginError>;
  }
});

describe('appliance-admin login / logout', () => {
  it('prints the page, the code and a QR code on stderr, who signed in and the appliance role on stdout, never a token', async () => {
    const config = tempDir('aa-xdg');
    vi.stubEnv('XDG_CONFIG_HOME', config);
    let out = '';
    let err = '';
    let approving: Promise<void> | undefined;
    const outSpy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
    const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      err += String(chunk);
      const code = /enter the code:\s+(\S+)/.exec(err)?.[1];
      const page = /open (\S+)/.exec(err)?.[1];
      if (code && page && !approving) approving = op.approveDevice(page, 'olga', { userCode: code });
      return true;
    });
    let rc: number;
    try {
      rc = await main([
        'login',
        '--issuer',
        op.issuer,
        '--client-id',
        CLIENT_ID,
        '--resource',
        AUDIENCE,
        '--url',
        `${s.url}/v1/admin`,
        '--qr',
      ]);
      await approving;
    } finally {
      outSpy.mockRestore();
      errSpy.mockRestore();
    }
    expect(rc).toBe(0);
    const file = join(config, 'appliance-admin', 'session.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const session = stored(file);
    expect(err).toMatch(
      new RegExp(
        `^To sign in, scan this with a phone\n(\x1b\\[30;47m[ ▀▄█]{29,45}\x1b\\[0m\n){15,23}or open ${op.issuer}/device\nand enter the code:  [A-Z]{4}-[A-Z]{4}\nWaiting for the approval`,
      ),
    );
    expect(out).toBe(
      `Signed in as ${ACCOUNTS.olga.name} (olga) at ${op.issuer}.\nThe appliance ${s.url} gives you the role app_owner.\n`,
    );
    for (const secret of [session.access_token, session.refresh_token, session.access_token.split('.')[2]]) {
      expect(out + err).not.toContain(secret);
    }

    // signing in again needs no options: they come from the stored session; stderr is no terminal, so no QR
    out = '';
    err = '';
    approving = undefined;
    const outSpy2 = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
    const errSpy2 = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      err += String(chunk);
      const complete = /\(or open (\S+), which has the code filled in\)/.exec(err)?.[1];
      if (complete && !approving) approving = op.approveDevice(complete, 'aude');
      return true;
    });
    try {
      rc = await main(['login']);
      await approving;
    } finally {
      errSpy2.mockRestore();
    }
    expect(rc).toBe(0);
    expect(err).toMatch(
      new RegExp(
        `^To sign in, open ${op.issuer}/device\nand enter the code:  [A-Z]{4}-[A-Z]{4}\n\\(or open ${op.issuer}/device\\?user_code=`,
      ),
    );
    expect(err).not.toMatch(/[▀▄█]/);
    expect(out).toBe(
      `Signed in as ${ACCOUNTS.aude.name} (aude) at ${op.issuer}.\nThe appliance ${s.url} gives you the role auditor.\n`,
    );
    expect(stored(file)).toMatchObject({ subject: 'aude', resource: AUDIENCE, appliance_url: `${s.url}/v1/admin` });
    const again = stored(file);
    for (const secret of [again.access_token, again.refresh_token, session.refresh_token])
      expect(out + err).not.toContain(secret);

    out = '';
    try {
      expect(await main(['logout'])).toBe(0);
    } finally {
      outSpy2.mockRestore();
      vi.unstubAllEnvs();
    }
    expect(existsSync(file)).toBe(false);
    expect(out).toBe(
      `Signed out of ${op.issuer} (Aude Auditor): removed ${file}; the identity provider revoked the refresh token.\n`,
    );
  });

  it('answers a usage error without --issuer and --client-id when nothing is stored', async () => {
    vi.stubEnv('XDG_CONFIG_HOME', tempDir('aa-xdg'));
    const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['login'])).toBe(2);
      expect(String(errSpy.mock.calls[0][0])).toMatch(/--issuer URL and --client-id ID are required/);
    } finally {
      errSpy.mockRestore();
      vi.unstubAllEnvs();
    }
  });
});
