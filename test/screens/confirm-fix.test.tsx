/**
 * Confirming a fix on the dashboard (issue 39): the keys screen says the refusals since a key's
 * quota changed, and the overview counts key rejections over the window chosen with H, D or W.
 */
import { describe, expect, it } from 'vitest';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { afterARefresh } from '../helpers/dashboard.js';
import { epochMinute, recordRefusedWorkload, recordUsage } from '../../src/server/gateway/metering.js';

const HOUR = 3_600_000;
let batch: { id: string; secret: string };

const suite = setupScreenSuite({
  setup: async (s) => {
    batch = (await s.call('POST', '/gateway/keys', { body: { name: 'batch-etl', quota: { requests_per_minute: 1 } } }))
      .json;
    const stray = (await s.call('POST', '/gateway/keys', { body: { name: 'stray-client' } })).json;
    // three hours ago: calls to a workload the appliance no longer has
    const minute = epochMinute(Date.now() - 3 * HOUR);
    recordUsage(s.server.db, stray.id, minute, { rejected_by: { unknown_workload: 5 } });
    recordRefusedWorkload(s.server.db, stray.id, minute, 'summarize-v0', 5);
  },
});

const call = () => suite.server.call('POST', '/v1/gateway/chat', { role: null, token: batch.secret, body: {} });

describe('the refusals since a quota change, on the keys screen', () => {
  it("counts from the key's creation, then from the first minute after the quota was raised", async () => {
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(429);
    const d = suite.render({ screen: 'keys', columns: 120, rows: 30 });
    await d.waitForText('batch-etl');
    await selectRow(d, 'batch-etl');
    const before = await d.waitFor(
      (f) => /batch-etl: 1 \/ ∞ \/ ∞ · since \d\d:\d\d UTC \(creation\): 1 rejected/.test(f),
      'the refusal since creation',
    );
    expect(before).toBeTruthy();

    // the operator raises the quota (as the u form sends it)
    const put = await suite.server.call('PUT', `/gateway/keys/${batch.id}/quota`, {
      body: { requests_per_minute: 100, tokens_per_minute: null, tokens_per_day: null },
    });
    expect(put.status).toBe(200);
    const from = new Date(Math.ceil(Date.parse(put.json.quota_changed_at) / 60_000) * 60_000).toISOString();
    await d.press('r');
    const after = await d.waitFor((f) => f.includes('(quota change)'), 'the change');
    expect(after).toContain(`batch-etl: 100 / ∞ / ∞ · since ${from.slice(11, 16)} UTC (quota change): 0 rejected`);
    expect((await call()).status).toBe(200);
    await afterARefresh(d);
    expect(d.frame()).toContain('(quota change): 0 rejected');
  });
});

describe("the overview's window for key rejections", () => {
  const strayLine = (f: string) => f.split('\n').find((l) => /WARN\s+Key stray-client/.test(l)) ?? '';

  it('counts over 1 h by default, 24 h with D, 7 d with W, and says the window in the line', async () => {
    for (const role of ['it_admin', 'auditor'] as const) {
      const d = suite.render({ role, columns: 200, rows: 40 });
      const hour = await d.waitForText('key rejections: 1 h');
      await d.waitFor((f) => !f.includes('loading…'), 'every source read');
      expect(strayLine(d.frame())).toBe(''); // three hours ago: outside the last hour
      expect(hour).toBeTruthy();

      await d.press('D');
      const day = await d.waitFor((f) => strayLine(f) !== '', 'the stray key in the last 24 h');
      expect(strayLine(day)).toMatch(
        /Key stray-client\s+5 calls rejected in the last 24 h: 5 unknown workload \(summarize-v0 ×5\)\s+5 · last 24 h/,
      );
      expect(day).toContain('key rejections: 24 h');

      await d.press('W');
      const week = await d.waitFor((f) => strayLine(f).includes('last 7 d'), 'the week');
      expect(strayLine(week)).toContain('5 calls rejected in the last 7 d');
      expect(week).toContain('key rejections: 7 d');

      await d.press('H');
      await d.waitFor((f) => f.includes('key rejections: 1 h') && strayLine(f) === '', 'back to the hour');
      await d.unmount();
    }
  });
});
