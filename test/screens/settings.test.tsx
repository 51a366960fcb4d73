import { describe, expect, it } from 'vitest';
import { widthOf } from '../../src/dashboard/kit/text.js';
import { displayFingerprint } from '../../src/text/fingerprint.js';
import { startTestServer } from '../helpers/server.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { json, startHostile } from '../helpers/hostile-server.js';

const SECRET = 'client-secret-never-shown-7f3a';
const suite = setupScreenSuite({
  start: () =>
    startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          sso: {
            issuer: 'https://login.example.com/realm',
            audience: 'urn:appliance-admin',
            role_claim: 'roles',
            subject_claim: 'sub',
            role_map: { admins: 'it_admin' },
            client_id: 'console',
            client_secret: SECRET,
          },
        }),
    }),
});

describe('settings screen', () => {
  it('shows every setting grouped by section, nested values as key paths, secrets as [redacted]', async () => {
    const d = suite.render({ screen: 'settings', rows: 120 });
    const f = await d.waitForText('[server]');
    expect(f).toContain(
      "Read only: settings come from the appliance's own configuration and are changed on the appliance, not here.",
    );
    const sections = (
      (await suite.server.call('GET', '/settings')).json as { sections: { name: string }[] }
    ).sections.map((x) => x.name);
    const shown = f
      .split('\n')
      .filter((l) => /^\[[a-z_]+\]/.test(l))
      .map((l) => l.slice(1, l.indexOf(']')));
    expect(shown).toEqual(sections);
    const { audit_key_fingerprint } = (await suite.server.call('GET', '/settings')).json;
    expect(audit_key_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(f).toContain(`audit checkpoints signed by ${displayFingerprint(audit_key_fingerprint)}`);
    expect(f).toMatch(/^ {2}name\s+test-appliance$/m);
    expect(f).toMatch(/conn_docs\.sources\[0\]\.path\s+\/\S+\/sources\/docs/);
    expect(f).toMatch(/conn_docs\.rbac_labels\[0\]\s+staff/);
    expect(f).toMatch(/role_map\.admins\s+it_admin/);
    expect(f).toMatch(/client_secret\s+\[redacted\] \(hidden by the appliance\)/);
    expect(f).toMatch(/\d+ settings in \d+ sections · \/ filters/);
    expect(d.allFrames()).not.toContain(SECRET);
    // nothing to change here: the hints offer no action
    expect(f.split('\n').at(-2)).toMatch(/^⏎ detail/);
  });

  it('filters with / and scrolls with the arrows, within 80 columns', async () => {
    const d = suite.render({ screen: 'settings', columns: 80, rows: 24 });
    const f = await d.waitForText(/lines 1–\d+ of \d+/);
    for (const line of f.split('\n')) expect(widthOf(line)).toBeLessThanOrEqual(80);
    const total = Number(/lines 1–\d+ of (\d+)/.exec(f)![1]);
    await d.press('end');
    const end = await d.waitForText(`of ${total} ·`);
    expect(end).toMatch(/sqlite_version\s+\d/);
    const first = Number(/lines (\d+)–/.exec(end)![1]);
    await d.press('up');
    await d.waitForText(`lines ${first - 1}–`);
    await d.press('/');
    await d.type('identity_test');
    await d.press('enter');
    const g = await d.waitForText(/\d+ of \d+ settings match "identity_test"/);
    expect(g).toContain('[identity_test]');
    expect(g).toMatch(/allow_http\s+true/);
    expect(g).not.toContain('[connectors]');
    await d.press('esc');
    await d.waitForText('[connectors]');
  });

  it('at 60 columns a key path too long is cut in its middle: the keys of one object still differ', async () => {
    const hostile = await startHostile({ upstream: suite.server.url });
    try {
      const source = (i: number) => ({ id: `src_${i}`, name: `Share ${i}`, path: `/srv/share-${i}` });
      hostile.set(
        '/settings',
        json({
          sections: [{ name: 'connectors', values: { conn_engineering_share: { sources: [source(0), source(1)] } } }],
          audit_key_fingerprint: null,
        }),
      );
      const d = suite.render({ screen: 'settings', columns: 60, rows: 20, url: hostile.url });
      const f = await d.waitForText('[connectors]');
      const keys = f
        .split('\n')
        .filter((l) => l.startsWith('  conn_'))
        .map((l) => l.trim().split(/\s{2,}/)[0]);
      expect(keys).toHaveLength(6);
      expect(new Set(keys).size).toBe(6);
      for (const k of keys) expect(k).toMatch(/^conn_\w*….*sources\[[01]\]\.(id|name|path)$/);
      expect(f).toMatch(/…\w*\.sources\[1\]\.path\s+\/srv\/share-1/);
    } finally {
      await suite.unmount();
      await hostile.close();
    }
  });

  it('an auditor reads the same settings', async () => {
    const d = suite.render({ role: 'auditor', screen: 'settings', rows: 120 });
    await d.waitForText('READ-ONLY');
    const f = await d.waitForText('[server]');
    expect(f).toMatch(/client_secret\s+\[redacted\]/);
    expect(f).toContain('Read only:');
  });

  it('a refused request shows in plain words with code and request id', async () => {
    const { issueToken, revokeToken } = await import('../../src/server/tokens.js');
    const { token } = issueToken(suite.db, 'it_admin', 'gone-admin');
    revokeToken(suite.db, 'gone-admin');
    const d = suite.render({ token, screen: 'settings' });
    const f = await d.waitForText(/code SVC-ADMIN-401 · request req_\w+/);
    expect(f).toContain('ERROR loading settings: The appliance did not accept the credential');
  });
});
