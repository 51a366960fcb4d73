import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dirname } from 'node:path';
import type { OidcPeer } from '../helpers/oidc.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { dashboardClockPassed, renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';
import { until } from '../helpers/until.js';
import { writeSession } from '../../src/client/session/store.js';
import {
  type Account,
  revokeRefreshToken,
  sessionPath,
  signIn,
  startAppliance,
  startProvider,
  stored,
} from './world.js';
import { parseDashboardArgs } from '../../src/cli/dashboard-args.js';
import { recordAudit } from '../../src/server/audit.js';
import { renderQr } from '../../src/client/session/index.js';

// Access tokens live 3 s: the dashboard renews them every 1.5 s or so, and a revoked refresh
// token shows within 1.5 s.
let op: OidcPeer;
let s: TestServer;
const open = new Set<DashboardHarness>();

beforeAll(async () => {
  op = await startProvider({ accessTokenTTL: TTL_S });
  s = await startAppliance(op);
});
afterAll(async () => {
  await Promise.all([...open].map((h) => h.unmount()));
  await Promise.all([s?.close(), op?.close()]);
});

const TTL_S = 3;
const REFRESH = 'refresh_token';
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const envFor = (file: string) => ({ XDG_CONFIG_HOME: dirname(dirname(file)) });
const header = (f: string) => f.split('\n').slice(0, 2).join('\n');
/** The frame as one line of words, dialog borders taken out (text wrapped in a box reads on). */
const oneLine = (f: string) =>
  f
    .split('\n')
    .map((l) => l.replace(/^\s*│ ?/, '').replace(/\s*│\s*$/, ''))
    .join(' ')
    .replace(/\s+/g, ' ');

/** A stored sign-in of `account` (through the real device flow) in its own XDG_CONFIG_HOME. */
async function signedIn(account: Account, peer = op, appliance = s): Promise<string> {
  const file = sessionPath();
  await signIn(peer, account, file, { applianceUrl: appliance.url });
  return file;
}

/**
 * The dashboard as `appliance-admin ARGS` builds it: no token option, so the stored sign-in.
 * `sent()` counts the requests it tried to send (each asks the stored sign-in for its token).
 */
function dashboard(file: string, argv: string[], size: { columns?: number; rows?: number } = {}) {
  const parsed = parseDashboardArgs(argv, envFor(file));
  if (parsed === 'help' || typeof parsed.token !== 'function') throw new Error('expected the stored sign-in');
  expect(parsed.session?.file).toBe(file);
  const token = parsed.token;
  let sent = 0;
  const h = renderDashboard({
    url: parsed.url,
    token: () => {
      sent++;
      return token();
    },
    session: { file: parsed.session!.file, settings: parsed.session!.info.settings },
    screen: parsed.screen,
    refreshMs: parsed.refreshMs,
    ...size,
  });
  open.add(h);
  return Object.assign(h, { sent: () => sent });
}

/** The page and code the dialog shows, then approval on the provider's pages as `account`. */
async function approveShownCode(h: DashboardHarness, account: Account): Promise<{ page: string; code: string }> {
  const f = await h.waitForText(/enter the code:\s+[A-Z]{4}-[A-Z]{4}/);
  const code = /enter the code:\s+([A-Z]{4}-[A-Z]{4})/.exec(f)![1];
  const page = /open (http:\/\/127\.0\.0\.1:\d+\/device)\b/.exec(f)![1];
  await op.approveDevice(page, account, { userCode: code });
  return { page, code };
}

// Each case has its own sign-in and dashboard, so they run side by side.
describe.concurrent('the dashboard with the stored sign-in', () => {
  it('needs no token option: the appliance of the sign-in, its subject and role (it_admin, auditor)', async () => {
    for (const [account, role] of [
      ['alice', 'it_admin'],
      ['aude', 'auditor'],
    ] as const) {
      const file = await signedIn(account);
      const d = dashboard(file, ['--screen', 'connectors', '--refresh', '300ms']);
      const f = await d.waitForText(`${account} (${role})`);
      expect(header(f)).toContain(`appliance-admin  ${s.url}`);
      await d.waitForText('Team share');
      if (role === 'auditor') expect(header(d.frame())).toContain('READ-ONLY');
      else expect(header(d.frame())).not.toContain('READ-ONLY');
      await d.unmount();
    }
  });

  it('without a token and without a stored sign-in, names the three ways to authenticate', () => {
    const nowhere = { XDG_CONFIG_HOME: tempDir('aa-cfg') };
    expect(() => parseDashboardArgs(['--url', s.url], nowhere)).toThrow(
      'no credential: give the token with --token-file FILE or the APPLIANCE_ADMIN_TOKEN variable, or sign in with: appliance-admin login --issuer URL --client-id ID [--url APPLIANCE]',
    );
    expect(() => parseDashboardArgs([], nowhere)).toThrow(
      /^--url URL is required, and no credential: .*--token-file FILE.*APPLIANCE_ADMIN_TOKEN.*appliance-admin login --issuer/,
    );
  });

  it('renews the access token during the session without a prompt; the expiry is never shown as an error', async () => {
    const file = await signedIn('olga');
    const first = stored(file);
    const renewalsBefore = op.tokenRequests(REFRESH);
    // one request a poll, as when the connectors screen was the first: with 3 s tokens, the
    // overview's eleven polls on one connection can queue past a token's last second on a loaded machine
    const d = dashboard(file, ['--screen', 'connectors', '--refresh', '200ms']);
    await d.waitForText('olga (app_owner)');
    // well past the first token's expiry, and polled since
    await until('the first token to expire', () => Date.now() > first.expires_at);
    const since = Date.now();
    await d.waitFor(
      () => Object.values(d.deps.resources.getState().entries).some((e) => (e.fetchedAt ?? 0) > since),
      'a poll after the first token expired',
    );
    expect(op.tokenRequests(REFRESH) - renewalsBefore).toBeGreaterThanOrEqual(2);
    expect(stored(file).access_token).not.toBe(first.access_token);
    expect(d.deps.dialogs.getState().stack).toEqual([]);
    expect(header(d.frame())).toMatch(/olga \(app_owner\)\s+·\s+● connected/);
    expect(d.allFrames()).not.toMatch(/ERROR|expired|SIGNED OUT|Sign in again|DISCONNECTED/);
  });

  it('when the refresh token is revoked on the audit screen with an actor filter: asks to sign in again, keeps screen and filter, resumes after approval', async () => {
    const t = Date.now();
    for (const [i, who] of ['carol@corp.example', 'dave@corp.example', 'carol@corp.example'].entries()) {
      recordAudit(s.server.db, {
        actor: { subject: who, role: 'app_owner' },
        action: 'channel.update',
        target: { type: 'channel', id: `before-${i}` },
        outcome: 'success',
        status: 200,
        request_id: `req_before_${i}`,
        source_ip: '10.0.0.1',
        details: {},
        at_ms: t - 60_000 + i,
      });
    }
    const file = await signedIn('alice');
    const d = dashboard(file, ['--screen', 'audit', '--refresh', '300ms'], { columns: 120, rows: 50 });
    await d.waitForText('alice (it_admin)');
    await d.waitForText('before-1');
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('tab', 'tab', 'tab');
    await d.type('carol@corp.example');
    await d.press('enter');
    await d.waitFor(
      (f) => f.includes('actor carol@corp.example') && f.includes('before-2') && !f.includes('before-1'),
      'the filtered list',
    );

    expect(await revokeRefreshToken(op, file)).toBe(true);
    const f = await d.waitForText('Your sign-in has expired');
    expect(oneLine(f)).toContain(
      'the identity provider refused to renew it (invalid_grant). Sign in again to continue.',
    );
    expect(oneLine(f)).toContain('Enter sign in again · Esc not now');
    expect(header(f)).toContain('[audit]');
    expect(header(f)).toContain('SIGNED OUT');
    expect(f).not.toContain('ERROR');
    // paused: the dashboard sends nothing (not even a renewal) while it asks
    const sent = d.sent();
    await dashboardClockPassed(d);
    expect(d.sent()).toBe(sent);

    await d.press('enter');
    const { page, code } = await approveShownCode(d, 'alice');
    // 120x50 has room for the QR code of the page with the code filled in, drawn without colours
    const qr = renderQr(`${page}?user_code=${code}`, { color: false });
    const shown = d.allFrames();
    for (const line of qr) expect(shown).toContain(line);

    await d.waitForText('Signed in again as Alice Admin (alice)');
    expect(header(d.frame())).toMatch(/alice \(it_admin\)\s+·\s+● connected/);
    expect(d.frame()).toContain('actor carol@corp.example');
    // polling resumed with the same filter: a new entry of carol's shows, dave's does not
    for (const who of ['carol@corp.example', 'dave@corp.example']) {
      recordAudit(s.server.db, {
        actor: { subject: who, role: 'app_owner' },
        action: 'channel.update',
        target: { type: 'channel', id: `after-${who.slice(0, 4)}` },
        outcome: 'success',
        status: 200,
        request_id: `req_after_${who.slice(0, 4)}`,
        source_ip: '10.0.0.1',
        details: {},
      });
    }
    const g = await d.waitForText('after-caro');
    expect(g).not.toContain('after-dave');
    expect(g).not.toContain('before-1');
    expect(d.deps.ui.getState().screen).toBe('audit');
    expect(stored(file).refresh_token).toBeTruthy();
  });

  it('Esc keeps the last data and the explanation, read-only; Esc while waiting for approval stops asking the provider; r asks again', async () => {
    // its own provider: it counts the device-code polls
    const own = await startProvider({ accessTokenTTL: TTL_S });
    const appliance = await startAppliance(own);
    try {
      const file = await signedIn('alice', own, appliance);
      const d = dashboard(file, ['--screen', 'connectors', '--refresh', '300ms'], { columns: 80, rows: 24 });
      await d.waitForText('Team share');
      expect(await revokeRefreshToken(own, file)).toBe(true);
      await d.waitForText('Your sign-in has expired');
      await d.press('esc');
      let f = await d.waitFor((x) => !x.includes('Enter sign in again'), 'the dialog closed');
      expect(f).toContain('Team share');
      expect(oneLine(f)).toContain(
        '▲ SIGNED OUT (r signs in again): Your sign-in has expired: the identity provider refused to renew it',
      );
      expect(header(f)).toContain('READ-ONLY');
      expect(f).toMatch(/i ingest ✕/);
      const sent = d.sent();
      await dashboardClockPassed(d);
      expect(d.sent()).toBe(sent);
      expect(d.frame()).toContain('Team share');

      await d.press('r');
      await d.waitForText('Enter sign in again');
      await d.press('enter');
      f = await d.waitForText(/enter the code:\s+[A-Z]{4}-[A-Z]{4}/);
      // 80x24 has no room for the QR code: the page and the code alone
      expect(oneLine(f)).toMatch(/To sign in, open http:\/\/127\.0\.0\.1:\d+\/device and enter the code/);
      const code = /enter the code:\s+([A-Z]{4}-[A-Z]{4})/.exec(f)![1];
      for (const line of renderQr(`${own.issuer}/device?user_code=${code}`, { color: false }))
        expect(d.allFrames()).not.toContain(line);
      const atPrompt = own.tokenRequests(DEVICE);
      await d.waitFor(() => own.tokenRequests(DEVICE) > atPrompt, 'the provider polled for the approval', 3000);
      await d.press('esc');
      f = await d.waitFor((x) => !x.includes('enter the code'), 'the sign-in cancelled');
      const polls = own.tokenRequests(DEVICE);
      await dashboardClockPassed(d); // device codes are polled every second
      expect(own.tokenRequests(DEVICE)).toBe(polls);
      expect(f).toContain('Team share');
      expect(oneLine(d.frame())).toContain('SIGNED OUT (r signs in again)');
      expect(d.sent()).toBe(sent);
      await d.unmount();
    } finally {
      await Promise.all([appliance.close(), own.close()]);
    }
  });

  it('a change stopped by the expiry is not sent again after the new sign-in, and says so', async () => {
    const channels = () => s.server.db.prepare('SELECT id, enabled FROM channels ORDER BY id').all();
    const before = channels();
    const file = await signedIn('alice');
    // one poll only: the change is what meets the expired sign-in
    const d = dashboard(file, ['--screen', 'channels', '--refresh', '10m']);
    await d.waitForText('Web chat');
    expect(await revokeRefreshToken(op, file)).toBe(true);
    // the token due for renewal (less than half its life left), as if 2 of its 3 s had passed
    writeSession(file, { ...stored(file), obtained_at: Date.now() - 2000, expires_at: Date.now() + 1000 });
    await d.press(' ');
    await d.waitForText(/(Disable|Enable) channel/);
    await d.press('right', 'enter');
    const f = await d.waitForText('Your sign-in has expired');
    expect(oneLine(f)).toContain(
      'toggle was stopped (nothing was changed). It will not be retried on its own: after signing in, press Space to do it again.',
    );
    expect(channels()).toEqual(before);
    await d.press('enter');
    await approveShownCode(d, 'alice');
    const g = await d.waitForText('Signed in again');
    expect(oneLine(g)).toContain('toggle was not retried (nothing was changed): press Space to do it now.');
    // polling resumed with the new sign-in (a retry would have gone out with it): still unchanged
    const signedInAt = Date.now();
    await d.waitFor(
      () => Object.values(d.deps.resources.getState().entries).some((e) => (e.fetchedAt ?? 0) > signedInAt),
      'a poll after the new sign-in',
    );
    expect(channels()).toEqual(before);
    await d.press('enter');
    await d.waitFor((x) => x.includes('Web chat') && !x.includes('Signed in again'), 'back on the screen');
  });

  it('a 401 from the appliance for the sign-in: renewed once without asking, then explained in a new sign-in dialog', async () => {
    // an appliance that expects tokens for another audience refuses every token of this sign-in
    const elsewhere = await startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          sso: {
            issuer: op.issuer,
            audience: 'urn:another-appliance',
            role_claim: 'groups',
            subject_claim: 'sub',
            role_map: { 'aa-admins': 'it_admin' },
          },
        }),
    });
    try {
      const file = await signedIn('alice', op, elsewhere);
      const token = stored(file).access_token;
      const d = dashboard(file, ['--refresh', '300ms']);
      const f = await d.waitForText('Your sign-in was not accepted');
      expect(oneLine(f)).toContain(
        'Your sign-in was issued for another service than this appliance (the audience differs)',
      );
      expect(header(f)).toContain('SIGNED OUT');
      // the quiet renewal happened (once), and did not help
      expect(stored(file).access_token).not.toBe(token);
      await d.unmount();
    } finally {
      await elsewhere.close();
    }
  });

  it('an identity provider that cannot be reached is a temporary problem with a retry, not a new sign-in', async () => {
    const flaky = await startProvider({ accessTokenTTL: TTL_S });
    const appliance = await startAppliance(flaky);
    const file = await signedIn('alice', flaky, appliance);
    const d = dashboard(file, ['--screen', 'connectors', '--refresh', '300ms']);
    try {
      await d.waitForText('Team share');
      await d.waitForText('alice (it_admin)');
      await flaky.close();
      const f = await d.waitForText('cannot renew the sign-in for now');
      expect(oneLine(f)).toMatch(
        /cannot renew the sign-in for now: your sign-in has run out and cannot be renewed right now: ECONNREFUSED.*a temporary problem, the sign-in is kept; showing the last data \(r retries now\)/,
      );
      expect(header(f)).toMatch(/DISCONNECTED · retry in \d+ s/);
      expect(f).toContain('Team share');
      expect(d.allFrames()).not.toContain('Sign in again');
      expect(d.deps.session.getState().signedOut).toBeNull();
    } finally {
      await d.unmount();
      await appliance.close();
    }
  });

  it('a refused token from a file is explained, with no sign-in offered', async () => {
    const { issueToken, revokeToken } = await import('../../src/server/tokens.js');
    const { token } = issueToken(s.server.db, 'it_admin', 'revoked-soon');
    revokeToken(s.server.db, 'revoked-soon');
    const d = renderDashboard({ server: s, token, refreshMs: 300 });
    let answered = 0;
    d.deps.client.observe(() => answered++);
    open.add(d);
    const f = await d.waitForText('refused the token');
    expect(oneLine(f)).toContain(
      'the appliance refused the token (401 SVC-ADMIN-401): unknown or revoked; an IT admin must issue a new token',
    );
    // two more polls, each refused again: still no sign-in offered
    const refused = answered;
    await until('two more polls', () => answered >= refused + 2);
    expect(d.allFrames()).not.toMatch(/Sign in again|SIGNED OUT|enter the code/);
    expect(d.deps.signIn).toBeUndefined();
  });
});
