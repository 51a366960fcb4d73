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

describe("the overview's line for a key whose quota changed within its window", () => {
  it('is OK once no call was refused since the change, and says how many still were otherwise', async () => {
    // still refused after its change: 3 refusals 30 min ago, the quota changed 20 min ago, 2 refusals 10 min ago
    const still = (await suite.server.call('POST', '/gateway/keys', { body: { name: 'still-refused' } })).json;
    const now = Date.now();
    recordUsage(suite.db, still.id, epochMinute(now - 30 * 60_000), { rejected_by: { requests_per_minute: 3 } });
    recordUsage(suite.db, still.id, epochMinute(now - 10 * 60_000), { rejected_by: { requests_per_minute: 2 } });
    const changedAt = new Date(epochMinute(now - 20 * 60_000) * 60_000).toISOString();
    suite.db.prepare('UPDATE gateway_keys SET quota_changed_at = ? WHERE id = ?').run(changedAt, still.id);

    const d = suite.render({ columns: 200, rows: 40 });
    const line = (f: string, name: string) => f.split('\n').find((l) => l.includes(`Key ${name}`)) ?? '';
    // batch-etl (above): refused once, then its quota was raised within the same minute and nothing since
    const f = await d.waitFor(
      (x) => line(x, 'batch-etl') !== '' && line(x, 'still-refused') !== '',
      'both keys on the board',
    );
    expect(line(f, 'batch-etl')).toMatch(
      /OK\s+Key batch-etl\s+1 call rejected in the last hour: 1 requests\/minute quota; none since its quota change at \d\d:\d\d UTC/,
    );
    expect(line(f, 'still-refused')).toMatch(
      new RegExp(
        `WARN\\s+Key still-refused\\s+5 calls rejected in the last hour: 5 requests/minute quota; 2 since its quota change at ${changedAt.slice(11, 16)} UTC`,
      ),
    );
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
