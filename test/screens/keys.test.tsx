import { describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/server.js';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { afterARefresh } from '../helpers/dashboard.js';

const suite = setupScreenSuite({
  setup: async (s) => {
    const res = await s.call('POST', '/gateway/keys', {
      body: { name: 'seeded-key', quota: { requests_per_minute: 30 } },
    });
    expect(res.status).toBe(201);
  },
});

interface KeyRow {
  id: string;
  name: string;
  status: string;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  tokens_per_day: number | null;
}
const keyNamed = (name: string) =>
  suite.db.prepare('SELECT * FROM gateway_keys WHERE name = ? ORDER BY seq DESC').get(name) as KeyRow | undefined;

describe('keys screen', () => {
  it('lists keys with status, prefix, quota and last use', async () => {
    const d = suite.render({ screen: 'keys' });
    const f = await d.waitForText('seeded-key');
    const row = keyNamed('seeded-key')!;
    const prefix = (suite.db.prepare('SELECT prefix FROM gateway_keys WHERE id = ?').get(row.id) as { prefix: string })
      .prefix;
    expect(f).toMatch(new RegExp(`seeded-key\\s+active\\s+${prefix}\\s+30 / ∞ / ∞\\s+–\\s+never`));
  });

  it('creates a key: the secret is shown once, copyable, and gone when the dialog closes', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('seeded-key');
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await d.type('ci-bot');
    await d.press('tab');
    await d.type('12x');
    await d.press('enter');
    await d.waitForText('a whole number ≥ 0, or empty for unlimited');
    expect(keyNamed('ci-bot')).toBeUndefined(); // invalid form: nothing sent
    await d.press('backspace', 'tab', 'tab');
    await d.type('5000');
    await d.press('enter');
    const shown = await d.waitForText('will not be shown again');
    const secret = /\b(agk_[A-Za-z0-9_-]{20,})\b/.exec(shown)?.[1];
    expect(secret).toBeDefined();
    const row = keyNamed('ci-bot')!;
    expect(row).toMatchObject({
      status: 'active',
      requests_per_minute: 12,
      tokens_per_minute: null,
      tokens_per_day: 5000,
    });

    expect(d.clipboard).toEqual([]); // copying needs the explicit key
    await d.press('y');
    await d.waitForText('copied to the clipboard (OSC 52)');
    expect(d.clipboard).toEqual([secret]);

    const framesBefore = d.allFrames().length;
    await d.press('enter');
    const result = await d.waitForText('Audit entry aud_');
    // the action has ended: the status line no longer says it runs
    expect(result.split('\n').at(-1)).not.toContain('◌');
    expect(result).toContain('Key created');
    expect(result).toContain(row.id);
    expect(result).toContain('gateway.key.create');
    // the target by its name, then its id; the entry's place in the chain
    expect(result).toContain(`target   ci-bot (gateway_key ${row.id})`);
    expect(result).toMatch(/Audit entry aud_\w+ · #\d+/);
    await d.press('enter');
    await d.waitForText('ci-bot');
    // never drawn again, and nothing the dashboard keeps holds it
    expect(d.allFrames().slice(framesBefore)).not.toContain(secret!);
    const kept = JSON.stringify([
      d.deps.resources.getState(),
      d.deps.ui.getState(),
      d.deps.dialogs.getState(),
      d.deps.session.getState(),
    ]);
    expect(kept).not.toContain(secret!);
    // nor the audit trail
    expect(JSON.stringify(suite.auditRows())).not.toContain(secret!);
  });

  it('sets a quota through a form prefilled with the current one', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('seeded-key');
    await selectRow(d, 'seeded-key');
    await d.press('u');
    await d.waitForText('Quota for seeded-key');
    expect(d.frame()).toMatch(/Requests \/ minute\s+30/);
    await d.press('backspace', 'backspace');
    await d.type('75');
    await d.press('tab');
    await d.type('1000');
    await d.press('enter');
    const saved = await d.waitForText('Quota saved');
    // where to watch the change work
    expect(saved).toMatch(/Its refusals are counted again from \d\d:\d\d UTC/);
    expect(keyNamed('seeded-key')).toMatchObject({
      requests_per_minute: 75,
      tokens_per_minute: 1000,
      tokens_per_day: null,
    });
  });

  it('revokes only when the key name is typed exactly', async () => {
    await suite.server.call('POST', '/gateway/keys', { body: { name: 'to-revoke' } });
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('to-revoke');
    await selectRow(d, 'to-revoke');
    await d.press('x');
    await d.waitForText('Type to-revoke to confirm');
    await d.type('to-revok');
    await d.press('enter');
    await d.waitForText('does not match; nothing was sent');
    expect(keyNamed('to-revoke')!.status).toBe('active');
    await d.type('e');
    await d.press('enter');
    const revoked = await d.waitForText('Key revoked');
    expect(revoked).not.toContain('◌ revoke');
    expect(keyNamed('to-revoke')!.status).toBe('revoked');
    await d.press('enter');
    await d.waitFor((f) => /to-revoke\s+revoked/.test(f), 'the list to show it revoked');
    // a revoked key offers no revoke or quota change
    await d.press('x');
    await d.waitForText('revoke: the key is revoked.');
  });

  it('the key hints follow the selected row: a revoked key says why revoke is off, an active one does not', async () => {
    const gone = await suite.server.call('POST', '/gateway/keys', { body: { name: 'hint-gone' } });
    expect((await suite.server.call('POST', `/gateway/keys/${gone.json.id}/revoke`)).status).toBe(200);
    expect((await suite.server.call('POST', '/gateway/keys', { body: { name: 'hint-live' } })).status).toBe(201);
    // wide enough for every action and both reasons on the hints line
    const d = suite.render({ screen: 'keys', columns: 160 });
    const hints = (f: string) => f.split('\n').find((l) => l.startsWith('n new key')) ?? '';
    const selectedName = (f: string) =>
      /hint-(gone|live)/.exec(f.split('\n').find((l) => l.startsWith('›')) ?? '')?.[0];
    await selectRow(d, 'hint-');
    // top, second, top, second: each move must redraw the hints for the row it lands on
    for (const key of ['g', 'j', 'g', 'j']) {
      const before = selectedName(d.frame());
      await d.press(key);
      const f = await d.waitFor(
        (x) =>
          selectedName(x) !== undefined &&
          (key === 'g' ? true : selectedName(x) !== before) &&
          hints(x).includes('the key is revoked') === (selectedName(x) === 'hint-gone'),
        `hints for the row after ${key}`,
      );
      if (selectedName(f) === 'hint-gone') expect(hints(f)).toContain('the key is revoked');
      else expect(hints(f)).not.toContain('the key is revoked');
    }
    // both rows were visited
    await d.press('g');
    const top = selectedName(await d.waitFor((x) => selectedName(x) !== undefined, 'a row'));
    await d.press('j');
    expect(selectedName(await d.waitFor((x) => selectedName(x) !== top, 'the other row'))).not.toBe(top);
  });

  it('a revoked key: the hint says why once, and keeps "? help" and "q quit" at 80x24', async () => {
    const gone = await suite.server.call('POST', '/gateway/keys', { body: { name: 'once-gone' } });
    expect((await suite.server.call('POST', `/gateway/keys/${gone.json.id}/revoke`)).status).toBe(200);
    const d = suite.render({ screen: 'keys', columns: 80, rows: 24 });
    await selectRow(d, 'once-gone');
    const hintsOf = (f: string) => f.split('\n').find((l) => l.startsWith('n new key')) ?? '';
    const narrow = hintsOf(await d.waitFor((x) => hintsOf(x).includes('(✕'), 'the hints for the revoked key'));
    expect(narrow).toContain('? help');
    expect(narrow).toMatch(/q quit$/);
    // wide enough for the whole reason: said once, not once per disabled action
    await d.resize(110, 30);
    const wide = hintsOf(await d.waitFor((x) => hintsOf(x).includes('revoked)'), 'the whole reason'));
    expect(wide.match(/revoked/g)).toHaveLength(1);
    expect(wide).toContain('u set quota ✕  R rotate ✕  x revoke ✕  h history  (✕ the key is revoked) │');
  });

  it('shows a refused change in plain words with code and request id, and keeps working', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('seeded-key');
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await d.type('seeded-key'); // an active key already has this name
    await d.press('enter');
    const f = await d.waitForText('new key failed');
    expect(f).toContain('Conflict with the current state');
    expect(f).toContain('already exists');
    expect(f).toContain('code SVC-ADMIN-409');
    const failed = suite
      .auditRows()
      .filter((r) => r.action === 'gateway.key.create' && r.outcome === 'failed')
      .at(-1)!;
    expect(f).toContain(`request ${failed.request_id}`);
    await d.press('enter');
    await d.waitFor(
      (x) => !x.includes('new key failed') && x.includes('Create a gateway key'),
      'the error to close and the form to come back',
    );
    await d.press('esc');
    await d.waitFor((x) => !x.includes('Create a gateway key'), 'the form to close');
    await d.press('down');
    expect(d.frame()).toContain('seeded-key');
  });

  it('an auditor cannot create, limit or revoke: dimmed, explained, nothing sent', async () => {
    const d = suite.render({ role: 'auditor', screen: 'keys' });
    await d.waitForText('READ-ONLY');
    await d.waitForText('seeded-key');
    expect(d.frame()).toMatch(/n new key ✕\s+u set quota ✕\s+R rotate ✕\s+x revoke ✕.*role auditor is read-only/);
    const audit = suite.auditRows();
    const keys = snapshot(suite.server, 'gateway_keys');
    for (const k of ['n', 'u', 'x']) {
      await d.press(k);
      await d.waitForText('Nothing was sent.');
      expect(d.frame()).not.toMatch(/Create a gateway key|Quota for|Type .* to confirm/);
    }
    await afterARefresh(d);
    expect(suite.auditRows()).toEqual(audit);
    expect(snapshot(suite.server, 'gateway_keys')).toEqual(keys);
  });

  it('without pricing: Spend says –, and B says a budget needs pricing and sends nothing', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await selectRow(d, 'seeded-key');
    const audit = suite.auditRows();
    const keys = snapshot(suite.server, 'gateway_keys');
    await d.press('B');
    const told = await d.waitForText('No budget without pricing');
    expect(told).toContain('Nothing was sent.');
    expect(told).not.toContain('Budget of seeded-key');
    await d.press('enter');
    await afterARefresh(d);
    expect(suite.auditRows()).toEqual(audit);
    expect(snapshot(suite.server, 'gateway_keys')).toEqual(keys);
  });
});
