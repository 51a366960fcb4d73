import { describe, expect, it } from 'vitest';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';

const secrets: string[] = [];
const suite = setupScreenSuite({
  setup: async (s) => {
    for (const name of ['log-seeded', 'log-revoke']) {
      const res = await s.call('POST', '/gateway/keys', { body: { name } });
      expect(res.status).toBe(201);
      secrets.push((res.json as { secret: string }).secret);
    }
  },
});
const keyId = (name: string) =>
  (suite.db.prepare('SELECT id FROM gateway_keys WHERE name = ?').get(name) as { id: string }).id;
const selectedLine = (f: string) => f.split('\n').find((l) => l.startsWith('›')) ?? '';

describe('log screen (the action log)', () => {
  it('shows a revoke and a refused create with their commands, no GET poll, no token or secret', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('log-revoke');
    await selectRow(d, 'log-revoke');
    await d.press('x');
    await d.waitForText('Type log-revoke to confirm');
    await d.type('log-revoke');
    await d.press('enter');
    await d.waitForText('Key revoked');
    await d.press('enter');
    // a second live key of the same name is refused (409): logged too
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await d.type('log-seeded');
    await d.press('enter');
    await d.waitForText('SVC-ADMIN-409');
    await d.press('enter');
    await d.waitForText('Not accepted');
    await d.press('esc');
    await d.waitFor((x) => !x.includes('Create a gateway key'), 'the form to close');

    await d.press(':');
    await d.type('log');
    await d.press('enter');
    const id = keyId('log-revoke');
    const f = await d.waitForText(`/gateway/keys/${id}/revoke`);
    expect(f).toContain('2 requests since the dashboard started · 1 failed');
    expect(f).toMatch(new RegExp(`POST\\s+/gateway/keys/${id}/revoke\\s+200`));
    expect(f).toMatch(/POST\s+\/gateway\/keys\s+409/);
    expect(f).not.toMatch(/\bGET\b/); // the polls of the keys list are not actions

    await selectRow(d, 'revoke');
    await d.press('enter');
    // the detail wraps the command: compared without its spaces, colours and borders
    const detail = (await d.waitForText('command')).replace(/\x1b\[[0-9;]*m|[│\s]/g, '');
    const url = `${suite.server.url}/v1/admin/gateway/keys/${id}/revoke`;
    expect(detail).toContain(`curl-XPOST-H"Authorization:Bearer$TOKEN"'${url}'`);
    await d.press('esc');

    // `a`: the audit trail, on the entry this revoke produced
    await d.press('a');
    const audit = await d.waitFor((x) => selectedLine(x).includes('gateway.key.revoke'), 'the revoke audit entry');
    expect(selectedLine(audit)).toContain('log-revoke');

    // at 80x24 the row keeps method, path and status, and the hints keep help and quit
    await d.resize(80, 24);
    await d.press(':');
    await d.type('log');
    await d.press('enter');
    const narrow = await d.waitForText('[log]');
    expect(narrow).toMatch(new RegExp(`POST\\s+/gateway/keys/${id}/revoke\\s+200`));
    expect(narrow).toContain('? help');
    expect(narrow).toContain('q quit');

    const all = d.allFrames();
    for (const s of [...secrets, ...Object.values(suite.server.tokens)]) expect(all).not.toContain(s);
  });

  it('an auditor sees an empty log: nothing sent', async () => {
    const d = suite.render({ screen: 'log', role: 'auditor' });
    await d.waitForText('Nothing sent yet');
  });
});
