import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OidcPeer } from '../helpers/oidc.js';
import type { TestServer } from '../helpers/server.js';
import { revokeToken } from '../../src/server/tokens.js';
import {
  AUDIENCE,
  CLIENT_ID,
  revokeRefreshToken,
  sessionPath,
  signIn,
  startAppliance,
  startProvider,
  stored,
} from './world.js';
import {
  currentSession,
  explainAuthFailure,
  getAccessToken,
  IdentityProviderUnavailableError,
  logout,
  NotSignedInError,
  SessionExpiredError,
  SessionFileError,
} from '../../src/client/session/index.js';
import { writeSession } from '../../src/client/session/store.js';

let op: OidcPeer;
let s: TestServer;

beforeAll(async () => {
  op = await startProvider({ accessTokenTTL: 5 });
  s = await startAppliance(op);
});
afterAll(async () => {
  await Promise.all([s?.close(), op?.close()]);
});

const REFRESH = 'refresh_token';

/** Asks the provider's token endpoint directly whether a refresh token is still good. */
async function refreshTokenWorks(peer: OidcPeer, refreshToken: string): Promise<boolean> {
  const res = await fetch(`${peer.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: CLIENT_ID }),
  });
  await res.body?.cancel();
  return res.status === 200;
}

/** Makes the stored access token look older than it is: obtained `ageMs` ago, expiring in `leftMs`. */
function age(file: string, ageMs: number, leftMs: number) {
  writeSession(file, { ...stored(file), obtained_at: Date.now() - ageMs, expires_at: Date.now() + leftMs });
}

// Cases use their own provider when they count token requests; all run side by side.
describe.concurrent('renewal', () => {
  it('renews a 5 s token once less than half its life is left, before it expires; saves the rotated refresh token 0600; the new token works', async () => {
    const own = await startProvider({ accessTokenTTL: 5 });
    try {
      const file = sessionPath();
      await signIn(own, 'alice', file);
      const before = stored(file);
      expect(await getAccessToken({ file })).toBe(before.access_token);
      expect(own.tokenRequests(REFRESH)).toBe(0);
      // 2.7 s of its 5 s gone: less than half its life is left, and it has not expired
      age(file, 2700, 2300);
      const aged = stored(file);
      const token = await getAccessToken({ file });
      expect(Date.now()).toBeLessThan(aged.expires_at);
      const after = stored(file);
      expect(own.tokenRequests(REFRESH)).toBe(1);
      expect(token).not.toBe(before.access_token);
      expect(token).toBe(after.access_token);
      expect(after.refresh_token).not.toBe(before.refresh_token);
      expect(after.expires_at).toBeGreaterThan(before.expires_at - 1);
      expect(after).toMatchObject({ subject: 'alice', name: 'Alice Admin', issuer: own.issuer, resource: AUDIENCE });
      expect(statSync(file).mode & 0o777).toBe(0o600);

      // a token further from expiry than the margin is used as is
      expect(await getAccessToken({ file, refreshMarginMs: 1000 })).toBe(token);
      expect(own.tokenRequests(REFRESH)).toBe(1);
      // the renewed token carries the audience and role claim the appliance checks
      const appliance = await startAppliance(own);
      try {
        expect((await appliance.call('GET', '/session', { token })).json).toMatchObject({
          subject: 'alice',
          role: 'it_admin',
        });
      } finally {
        await appliance.close();
      }
    } finally {
      await own.close();
    }
  });

  it('shares one renewal between concurrent callers', async () => {
    const own = await startProvider({ accessTokenTTL: 5 });
    try {
      const file = sessionPath();
      await signIn(own, 'olga', file);
      const tokens = await Promise.all(
        Array.from({ length: 6 }, () => getAccessToken({ file, refreshMarginMs: 60_000 })),
      );
      expect(new Set(tokens).size).toBe(1);
      expect(own.tokenRequests(REFRESH)).toBe(1);
      expect(await refreshTokenWorks(own, stored(file).refresh_token)).toBe(true);
    } finally {
      await own.close();
    }
  });

  it('shares one renewal between two processes, so a rotating provider never sees a refresh token spent twice', async () => {
    const own = await startProvider({ accessTokenTTL: 5 });
    try {
      const file = sessionPath();
      await signIn(own, 'aude', file);
      const child = fileURLToPath(new URL('./children/get-token.ts', import.meta.url));
      age(file, 4000, 1000);
      const procs = [0, 1].map(() =>
        spawn(process.execPath, ['--import', 'tsx', child, file], { stdio: ['pipe', 'pipe', 'inherit'] }),
      );
      const outputs = procs.map((p) => {
        let text = '';
        p.stdout.on('data', (d) => (text += d));
        return {
          ready: new Promise<void>((resolve) => p.stdout.on('data', () => text.includes('ready') && resolve())),
          done: new Promise<string>((resolve) => p.on('exit', () => resolve(text))),
        };
      });
      await Promise.all(outputs.map((o) => o.ready));
      for (const p of procs) p.stdin.write('go\n');
      const results = (await Promise.all(outputs.map((o) => o.done))).map((t) => t.replace('ready\n', '').trim());
      const expected = `token ${createHash('sha256').update(stored(file).access_token).digest('hex')}`;
      expect(results).toEqual([expected, expected]);
      expect(own.tokenRequests(REFRESH)).toBe(1);
      expect(await refreshTokenWorks(own, stored(file).refresh_token)).toBe(true);
    } finally {
      await own.close();
    }
  });
});

describe.concurrent('when the sign-in can no longer be renewed', () => {
  it('throws SessionExpiredError for a revoked refresh token, keeping what a new sign-in needs', async () => {
    const file = sessionPath();
    await signIn(op, 'alice', file, { applianceUrl: s.url });
    expect(await revokeRefreshToken(op, file)).toBe(true);
    const err = await getAccessToken({ file, refreshMarginMs: 60_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(SessionExpiredError);
    expect(err.message).toBe('your sign-in has expired; run appliance-admin login again');
    expect(err.reason).toMatch(/invalid_grant/);
    expect(err.settings).toEqual({ issuer: op.issuer, clientId: CLIENT_ID, resource: AUDIENCE, applianceUrl: s.url });
    expect(existsSync(file)).toBe(true);
  });

  it('keeps using the current token while the provider is unreachable, then says the provider cannot be reached', async () => {
    const flaky = await startProvider({ accessTokenTTL: 7 });
    const file = sessionPath();
    await signIn(flaky, 'alice', file);
    const token = stored(file).access_token;
    await flaky.close();
    expect(await getAccessToken({ file, refreshMarginMs: 60_000 })).toBe(token);
    // pretend the token ran out while the provider is gone
    age(file, 8000, -1000);
    const err = await getAccessToken({ file }).catch((e) => e);
    expect(err).toBeInstanceOf(IdentityProviderUnavailableError);
    expect(err.message).toMatch(/^your sign-in has run out and cannot be renewed right now: ECONNREFUSED/);
    expect(err.message).not.toContain(token);
  });
});

// not concurrent with other cases: it moves the clock of the whole process
describe('when the refresh token has run out', () => {
  it('throws SessionExpiredError for an expired refresh token; the appliance refuses the expired access token with 401, explained', async () => {
    const brief = await startProvider({ accessTokenTTL: 1, refreshTokenTTL: 1 });
    const appliance = await startAppliance(brief);
    try {
      const file = sessionPath();
      await signIn(brief, 'olga', file);
      const token = stored(file).access_token;
      // both 1 s tokens run out (their times are whole seconds): 2.1 s later by this process's
      // clock, which the provider, the appliance and the client all read (only Date is faked)
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      let err: unknown;
      let res: Awaited<ReturnType<typeof appliance.call>>;
      try {
        vi.setSystemTime(Date.now() + 2100);
        err = await getAccessToken({ file }).catch((e) => e);
        res = await appliance.call('GET', '/session', { token });
      } finally {
        vi.useRealTimers();
      }
      expect(err).toBeInstanceOf(SessionExpiredError);
      expect(res.status).toBe(401);
      expect(explainAuthFailure(res.status, res.json, 'session')).toEqual({
        title: 'Your sign-in was not accepted',
        message: 'Your sign-in has expired. Sign in again to continue.',
        signInAgain: true,
      });
    } finally {
      await Promise.all([appliance.close(), brief.close()]);
    }
  });
});

describe.concurrent('the appliance refusing a credential, in plain words', () => {
  it('explains a tampered access token (401) as a sign-in to redo', async () => {
    const file = sessionPath();
    await signIn(op, 'alice', file);
    const [h, p, sig] = stored(file).access_token.split('.');
    const tampered = `${h}.${p}.${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`;
    const res = await s.call('GET', '/session', { token: tampered });
    expect(res.status).toBe(401);
    const why = explainAuthFailure(res.status, res.json, 'session')!;
    expect(why.signInAgain).toBe(true);
    expect(why.message).toMatch(/^The appliance could not verify your sign-in's signature/);
  });

  it('explains a token for another audience', async () => {
    const why = explainAuthFailure(
      401,
      { detail: 'identity-provider token rejected: unexpected "aud" claim value' },
      'session',
    )!;
    expect(why.message).toMatch(/another service than this appliance/);
  });

  it('explains a revoked on-host token without offering a device sign-in', async () => {
    revokeToken(s.server.db, 'aude-auditor');
    const res = await s.call('GET', '/session', { role: 'auditor' });
    expect(res.status).toBe(401);
    expect(explainAuthFailure(res.status, res.json, 'token')).toMatchObject({
      title: 'The appliance did not accept the token',
      signInAgain: false,
    });
  });

  it('explains a sign-in whose account maps to no role (403)', async () => {
    const file = sessionPath();
    await signIn(op, 'nobody', file);
    const res = await s.call('GET', '/session', { token: stored(file).access_token });
    expect(res.status).toBe(403);
    expect(explainAuthFailure(res.status, res.json, 'session')).toMatchObject({
      title: 'Signed in, but without a role on this appliance',
      signInAgain: false,
    });
    expect(
      explainAuthFailure(403, { code: 'SVC-ADMIN-403', detail: 'role auditor may not do this' }, 'session'),
    ).toBeUndefined();
  });
});

describe.concurrent('the session file', () => {
  it('is refused when others can read it, with the chmod that fixes it; logout still removes it', async () => {
    const file = sessionPath();
    await signIn(op, 'alice', file);
    chmodSync(file, 0o644);
    const err = await getAccessToken({ file }).catch((e) => e);
    expect(err).toBeInstanceOf(SessionFileError);
    expect(err.message).toBe(
      `the session file ${file} can be read by other users (mode 0644), so it is not used; run: chmod 600 ${file} (or appliance-admin logout and sign in again)`,
    );
    expect(() => currentSession({ file })).toThrow(/chmod 600/);
    chmodSync(file, 0o600);
    expect(currentSession({ file })).toMatchObject({ subject: 'alice', issuer: op.issuer, canRenew: true });
    chmodSync(file, 0o644);
    const out = await logout({ file });
    expect(out).toEqual({ removed: true, revoked: false, session: undefined });
    expect(existsSync(file)).toBe(false);
  });

  it('logout revokes the refresh token at the provider and removes the file', async () => {
    const file = sessionPath();
    await signIn(op, 'olga', file);
    const refreshToken = stored(file).refresh_token;
    const out = await logout({ file });
    expect(out).toMatchObject({ removed: true, revoked: true, session: { subject: 'olga', name: 'Olga Owner' } });
    expect(JSON.stringify(out)).not.toContain(refreshToken);
    expect(existsSync(file)).toBe(false);
    expect(await refreshTokenWorks(op, refreshToken)).toBe(false);
    expect(await logout({ file })).toEqual({ removed: false, revoked: false, session: undefined });
  });

  it('says how to sign in when there is no session, and how to recover from a damaged one', async () => {
    const file = sessionPath();
    const err = await getAccessToken({ file }).catch((e) => e);
    expect(err).toBeInstanceOf(NotSignedInError);
    expect(err.message).toMatch(/you are not signed in .*run: appliance-admin login --issuer URL --client-id ID/);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, '{"version":1,', { mode: 0o600 });
    await expect(getAccessToken({ file })).rejects.toThrow(/is damaged; run: appliance-admin logout/);
  });

  it('renews at once when a crashed process left its lock behind', async () => {
    const file = sessionPath();
    await signIn(op, 'olga', file);
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => dead.on('exit', r));
    writeFileSync(`${file}.lock`, String(dead.pid), { mode: 0o600 });
    const before = stored(file).access_token;
    const started = Date.now();
    expect(await getAccessToken({ file, refreshMarginMs: 60_000 })).not.toBe(before);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('tightens its own folder to 0700 and leaves no temporary files behind', async () => {
    const file = join(sessionPath());
    mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
    chmodSync(dirname(file), 0o755);
    await signIn(op, 'aude', file);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    await getAccessToken({ file, refreshMarginMs: 60_000 });
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dirname(file))).toEqual(['session.json']);
  });
});
