import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';

/**
 * A form the appliance refuses (400/409/413/422, nothing changed yet) comes back with what was
 * sent and the reason, for every form-based action (src/dashboard/shell/actions.ts): correct and resend,
 * or Esc to give up.
 */
const suite = setupScreenSuite({
  setup: async (s) => {
    expect((await s.call('POST', '/gateway/keys', { body: { name: 'burst-key' } })).status).toBe(201);
  },
});

interface KeyRow {
  name: string;
  status: string;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  tokens_per_day: number | null;
}
const keys = () =>
  suite.db
    .prepare(
      'SELECT name, status, requests_per_minute, tokens_per_minute, tokens_per_day FROM gateway_keys ORDER BY seq',
    )
    .all() as KeyRow[];

describe('a refused form', () => {
  it('comes back with what was sent and the reason; corrected, it is sent again', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('burst-key');
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await d.type('burst-key');
    await d.press('tab');
    await d.type('10');
    await d.press('tab');
    await d.type('20000');
    await d.press('tab');
    await d.type('300000');
    await d.press('enter');
    const refused = await d.waitForText('new key failed');
    expect(refused).toContain('code SVC-ADMIN-409');
    expect(refused.replace(/[│\s]+/g, ' ')).toContain('Closing this brings back the form with what you sent');
    await d.press('enter');

    const again = await d.waitForText('Create a gateway key');
    expect(again.replace(/[│\s]+/g, ' ')).toContain(
      '✕ Not accepted: Conflict with the current state: an active gateway key named "burst-key" already exists',
    );
    expect(again).toMatch(/Name\s+burst-key/);
    expect(again).toMatch(/Requests \/ minute\s+10\b/);
    expect(again).toMatch(/Tokens \/ minute\s+20000\b/);
    expect(again).toMatch(/Tokens \/ day\s+300000\b/);
    // the name is selected (typing would replace it): End keeps it, the caret at its end
    await d.press('end');
    await d.type('-2');
    await d.press('enter');
    await d.waitForText('will not be shown again');
    await d.press('enter');
    await d.waitForText('Key created');
    expect(keys().at(-1)).toEqual({
      name: 'burst-key-2',
      status: 'active',
      requests_per_minute: 10,
      tokens_per_minute: 20000,
      tokens_per_day: 300000,
    });
  });

  it('Esc on the form that came back gives up: nothing sent, and the next form starts empty', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('burst-key');
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await d.type('burst-key');
    await d.press('enter');
    await d.waitForText('new key failed');
    await d.press('enter');
    await d.waitForText('✕ Not accepted');
    const before = keys();
    await d.press('esc');
    await d.waitFor((f) => !f.includes('Create a gateway key'), 'the form to close');
    expect(keys()).toEqual(before);
    await d.press('n');
    const fresh = await d.waitForText('Create a gateway key');
    expect(fresh).not.toContain('Not accepted');
    expect(fresh).not.toMatch(/Name\s+burst-key/);
  });
});
