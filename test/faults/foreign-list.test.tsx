import { afterEach, describe, expect, it } from 'vitest';
import { redirect, unrelatedJson } from '../helpers/not-an-appliance.js';
import { renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';
import { setupHostileFront } from '../helpers/hostile-front.js';

/**
 * The dashboard pointed at something that is not an appliance (or with a proxy answering the
 * list): the keys screen shows an error in plain words, never "No gateway keys yet". Everything
 * else passes through to the real server.
 */
let d: DashboardHarness | undefined;
const oneLine = (f: string) => f.replace(/\s+/g, ' ');

const front = setupHostileFront();
afterEach(async () => {
  front.hostile.clear();
  await d?.unmount();
  d = undefined;
});

describe('the keys screen when the list answer is not from the appliance', () => {
  it('unrelated JSON: an error naming it, not an empty list', async () => {
    front.hostile.set('/gateway/keys', unrelatedJson());
    d = renderDashboard({
      url: front.hostile.url,
      token: front.server.tokens.it_admin,
      screen: 'keys',
      refreshMs: 60_000,
    });
    const f = oneLine(await d.waitFor((x) => x.includes('No data: the request failed'), 'the error', 8000));
    expect(f).toMatch(
      /✕ ERROR loading keys: the answer to GET \/gateway\/keys is not from the appliance API: a JSON object without a "data" list \(its fields: "hello"\)/,
    );
    expect(d.allFrames()).not.toMatch(/No gateway keys yet|0 keys/);
    expect(d.crashed()).toBeNull();
  });

  it('a redirect to a sign-in proxy: an error naming where it points', async () => {
    front.hostile.set('/gateway/keys', redirect('https://sso.example.test/oauth2/start'));
    d = renderDashboard({
      url: front.hostile.url,
      token: front.server.tokens.it_admin,
      screen: 'keys',
      refreshMs: 60_000,
    });
    const f = oneLine(await d.waitFor((x) => x.includes('No data: the request failed'), 'the error', 8000));
    expect(f).toContain('is a redirect (302) to https://sso.example.test/oauth2/start');
    expect(d.allFrames()).not.toMatch(/No gateway keys yet|0 keys/);
  });

  it('the real answer: the keys are listed', async () => {
    await front.server.call('POST', '/gateway/keys', { body: { name: 'foreign-dash' } });
    d = renderDashboard({
      url: front.hostile.url,
      token: front.server.tokens.it_admin,
      screen: 'keys',
      refreshMs: 60_000,
    });
    const f = await d.waitForText('foreign-dash', 8000);
    expect(f).not.toContain('ERROR');
  });
});
