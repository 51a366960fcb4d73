import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { afterARefresh, type DashboardHarness } from '../helpers/dashboard.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { startOidcProvider, type OidcPeer } from '../helpers/oidc.js';
import { startHttpPeer, type HttpPeer } from '../helpers/http-peer.js';
import { samlMetadata, testCertificate } from '../helpers/saml.js';

let idp: OidcPeer;
let saml: HttpPeer;
let closed: HttpPeer;

const suite = setupScreenSuite({
  start: async () => {
    const [s, provider] = await Promise.all([startTestServer(), startOidcProvider()]);
    idp = provider;
    return s;
  },
});
beforeAll(async () => {
  const cert = await testCertificate(-1, 30);
  saml = await startHttpPeer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' });
    res.end(samlMetadata({ entityId: 'https://idp.test/saml', ssoUrl: 'https://idp.test/sso', certPem: cert }));
  });
  closed = await startHttpPeer(() => undefined);
  await closed.close(); // a port nothing listens on any more
});
afterAll(async () => {
  await Promise.all([idp.close(), saml.close()]);
});

const NOTE =
  'A passing check means the identity provider is reachable and its metadata is valid. It does not mean single sign-on is set up: federation is configured in the identity provider, not here.';
/** The frame's text with line breaks, borders and indentation folded into single spaces. */
const flat = (f: string) => f.replace(/[│\s]+/g, ' ');

async function runCheck(h: DashboardHarness, url: string, provider: 'oidc' | 'saml' = 'oidc') {
  await h.press('t');
  await h.waitForText('Check an identity provider');
  if (provider === 'saml') await h.press('right');
  await h.press('tab'); // a new dashboard: the URL field starts empty
  await h.type(url);
  await h.press('enter');
}

describe('identity screen', () => {
  it('says plainly, before any check, that a pass does not mean single sign-on is set up', async () => {
    const d = suite.render({ screen: 'identity' });
    const f = await d.waitForText('Identity-provider connectivity pre-check');
    expect(flat(f)).toContain(NOTE);
    expect(f).toContain('No check run yet in this session.');
    expect(f).toMatch(/outbound policy\s+http allowed \(lab setting\) · private addresses allowed/);
    expect(f).toMatch(/t run check {2}/);
  });

  it('runs the OIDC check against a real provider: every step passed, audited, and the result stays', async () => {
    const d = suite.render({ screen: 'identity' });
    await d.waitForText('Identity-provider connectivity pre-check');
    const calls = idp.requests();
    await runCheck(d, idp.issuer);
    const done = await d.waitForText('Audit entry aud_', 10_000);
    expect(done).toContain('Identity check passed');
    expect(done).toContain(`PASSED: oidc ${idp.issuer}`);
    expect(done).toMatch(/passed: resolve, discovery, [a-z, -]*jwks/);
    expect(done).toContain('This does NOT set up single sign-on');
    expect(done).toContain('identity.test');
    const entry = suite
      .auditRows()
      .filter((r) => r.action === 'identity.test')
      .at(-1)!;
    expect(entry.outcome).toBe('success');
    expect(done).toContain(entry.request_id);
    expect(idp.requests()).toBeGreaterThan(calls); // the appliance really called the provider
    await d.press('enter');
    const f = await d.waitForText('Last result  ● PASSED');
    expect(f).toMatch(/discovery\s+● passed\s+\d+ ms\s+\S/);
    expect(f).toMatch(/jwks\s+● passed\s+\d+ ms\s+\S/);
    expect(f).not.toMatch(/✕ failed|○ skipped/);
    expect(flat(f)).toContain(NOTE);
    // the last result survives leaving the screen and coming back
    await d.press('tab');
    await d.waitForText('[log]');
    await d.press('shift-tab');
    await d.waitForText('Last result  ● PASSED');
  });

  it('runs the SAML check against served metadata', async () => {
    const d = suite.render({ screen: 'identity' });
    await d.waitForText('Identity-provider connectivity pre-check');
    await runCheck(d, `${saml.url}/metadata`, 'saml');
    const done = await d.waitForText('Audit entry aud_', 10_000);
    expect(done).toContain('Identity check passed');
    expect(saml.paths).toContain('/metadata');
    await d.press('enter');
    const f = await d.waitForText('Last result  ● PASSED');
    expect(f).toContain(`saml ${saml.url}/metadata`);
  });

  it("Enter shows the check (before one: what the screen says of it; after: the last answer whole), not the appliance's settings", async () => {
    const d = suite.render({ screen: 'identity', columns: 120, rows: 40 });
    await d.waitForText('Identity-provider connectivity pre-check');
    await d.press('enter');
    const before = await d.waitForText('Detail: Identity check');
    expect(before).toMatch(/last_result\s+no check run yet in this session \(t runs one\)/);
    expect(before).toMatch(/identity_test\.timeout_ms\s+\d+/);
    expect(before).not.toContain('sections[');
    await d.press('esc');
    await runCheck(d, closed.url);
    await d.waitForText('Identity check failed', 10_000);
    await d.press('enter');
    await d.waitForText('Last result  ✕ FAILED');
    await d.press('enter');
    const after = await d.waitForText('Detail: Identity check');
    expect(after).toMatch(/ok\s+false/);
    expect(after).toMatch(/provider\s+oidc/);
    expect(after).toMatch(/steps\[1\]\.detail\s+GET \/\.well-known\/openid-configuration: connection refused/);
    expect(after).not.toContain('sections[');
  });

  it('shows a failing target as failed steps', async () => {
    const d = suite.render({ screen: 'identity' });
    await d.waitForText('Identity-provider connectivity pre-check');
    await runCheck(d, closed.url);
    const done = await d.waitForText('Identity check failed', 10_000);
    expect(done).toContain(`FAILED: oidc ${closed.url}`);
    expect(done).toMatch(/failed: \w+ · skipped: [a-z, -]+/);
    // its audit entry's outcome is the request's, said so beside a failed check
    expect(done).toMatch(/outcome {2}request success \(HTTP 200\)/);
    await d.press('enter');
    const f = await d.waitForText('Last result  ✕ FAILED');
    expect(f).toMatch(/✕ failed\s+\d+ ms\s+\S/);
    expect(f).toMatch(/○ skipped/); // later steps did not run
    expect(flat(f)).toContain(NOTE);
  });

  it('a URL the appliance refuses shows in plain words with code and request id; the screen keeps working', async () => {
    const d = suite.render({ screen: 'identity' });
    await d.waitForText('Identity-provider connectivity pre-check');
    await runCheck(d, `${idp.issuer}/?tenant=1`);
    const f = await d.waitForText('run check failed', 10_000);
    expect(f).toContain('The appliance rejected the request as invalid');
    expect(f).toMatch(/code SVC-ADMIN-400 · request req_\w+/);
    expect(f).toContain('issuer_url: must not contain ? or #');
    await d.press('enter');
    // the form comes back with what was sent, to correct it; Esc gives up
    const again = await d.waitForText('✕ Not accepted');
    expect(again).toContain(`${idp.issuer}/?tenant=1`);
    await d.press('esc');
    await d.waitForText('No check run yet in this session.');
  });

  it('keeps credentials out: a URL with user:password@ is refused before anything is sent', async () => {
    const d = suite.render({ screen: 'identity' });
    await d.waitForText('Identity-provider connectivity pre-check');
    const before = suite.auditRows().length;
    await runCheck(d, 'https://user:hunter2@idp.example.com');
    await d.waitForText('no user:password@ in the URL');
    await d.press('esc');
    await d.waitForText('No check run yet');
    expect(suite.auditRows()).toHaveLength(before);
    expect(JSON.stringify(d.deps.ui.getState())).not.toContain('hunter2');
  });

  it('an auditor sees the check disabled with the reason; pressing it sends nothing', async () => {
    const d = suite.render({ role: 'auditor', screen: 'identity' });
    await d.waitForText('READ-ONLY');
    const f = await d.waitForText('Identity-provider connectivity pre-check');
    expect(flat(f)).toContain(NOTE);
    // nothing invites the auditor to press the disabled t
    expect(f).toContain('No check run yet in this session.');
    expect(f).not.toContain('Press t');
    await d.waitForText(/t run check ✕.*role auditor is read-only/);
    const audit = suite.auditRows();
    const calls = idp.requests();
    await d.press('t');
    await d.waitForText('run check: disabled: role auditor is read-only. Nothing was sent.');
    expect(d.frame()).not.toContain('Check an identity provider');
    await d.press('?');
    await d.waitForText(/t\s+run check \(changes the appliance\) — ✕ role auditor is read-only/);
    await d.press('esc');
    await afterARefresh(d);
    expect(suite.auditRows()).toEqual(audit);
    expect(idp.requests()).toBe(calls);
  });
});
