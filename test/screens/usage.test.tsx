import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { recordUsage, epochMinute } from '../../src/server/gateway/metering.js';
import { issueToken, revokeToken } from '../../src/server/tokens.js';
import { groupSums, hoursPerMark, usageWindow } from '../../screens/usage.js';

const HOUR = 3_600_000;
let ciSecret: string;

const suite = setupScreenSuite({
  setup: async (s) => {
    const ci = (await s.call('POST', '/gateway/keys', { body: { name: 'ci-bot' } })).json;
    ciSecret = ci.secret;
    const reporting = (await s.call('POST', '/gateway/keys', { body: { name: 'reporting' } })).json;
    const old = (await s.call('POST', '/gateway/keys', { body: { name: 'old-widget' } })).json;
    await s.call('POST', `/gateway/keys/${old.id}/revoke`);
    // history, written the way the gateway meters it: per key and minute
    const now = Date.now();
    recordUsage(s.server.db, ci.id, epochMinute(now - 5 * HOUR), {
      requests: 40,
      input_tokens: 40_000,
      output_tokens: 12_000,
    });
    recordUsage(s.server.db, ci.id, epochMinute(now - 72 * HOUR), {
      requests: 100,
      rejected_by: { tokens_per_day: 7 },
      input_tokens: 2_500_000,
      output_tokens: 100,
    });
    recordUsage(s.server.db, reporting.id, epochMinute(now - 2 * HOUR), {
      requests: 10,
      input_tokens: 900,
      output_tokens: 300,
    });
    recordUsage(s.server.db, old.id, epochMinute(now - 100 * HOUR), { requests: 5 });
  },
});

const gatewayCall = () =>
  suite.server.call('POST', '/v1/gateway/chat', { role: null, token: ciSecret, body: { max_tokens: 50 } });

describe('usage windows', () => {
  it('end with the current minute; the day and week start on an hour', () => {
    const now = Date.parse('2026-11-21T09:41:30.500Z');
    expect(usageWindow('hour', now)).toEqual({
      start_time: '2026-11-21T08:42:00.000Z',
      end_time: '2026-11-21T09:42:00.000Z',
    });
    expect(usageWindow('day', now)).toEqual({
      start_time: '2026-11-20T10:00:00.000Z',
      end_time: '2026-11-21T09:42:00.000Z',
    });
    expect(usageWindow('week', now)).toEqual({
      start_time: '2026-11-14T10:00:00.000Z',
      end_time: '2026-11-21T09:42:00.000Z',
    });
  });

  it('charts whole sums of hourly buckets, newest last', () => {
    expect(hoursPerMark(24, 40)).toBe(1);
    expect(hoursPerMark(24, 13)).toBe(2);
    expect(hoursPerMark(168, 42)).toBe(4);
    expect(groupSums([1, 2, 3, 4, 5], 2)).toEqual([1, 5, 9]);
  });
});

describe('usage screen', () => {
  it('shows the last 24 hours per key by name: requests, rejected, tokens and an hourly sparkline', async () => {
    const d = suite.render({ screen: 'usage' });
    const f = await d.waitForText('ci-bot');
    expect(f).toMatch(/Last 24 hours · \d{4}-\d\d-\d\d \d\d:00 → (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC/);
    expect(f).toContain('Requests per hour, oldest → now');
    const ci = f.split('\n').find((l) => l.includes('ci-bot'))!;
    expect(ci).toMatch(/ci-bot\s+40\s+0\s+40k\s+12k\s+[·]*█[·]+$/);
    expect(ci.trimEnd().length).toBeLessThanOrEqual(120);
    expect(f).toMatch(/reporting\s+10\s+0\s+900\s+300\s+[·]+█[·]+\n/);
    expect(f).not.toContain('old-widget'); // no traffic in these 24 hours
    expect(f).toContain('2 keys · 50 requests · 0 rejected');
  });

  it('switches to the last hour (totals only), says when there is no traffic, and follows live gateway calls', async () => {
    const d = suite.render({ screen: 'usage' });
    await d.waitForText('ci-bot');
    await d.press('H');
    const empty = await d.waitForText('No traffic in this range');
    expect(empty).toMatch(
      /Last hour · \d{4}-\d\d-\d\d \d\d:\d\d → (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC · totals only: hourly buckets/,
    );
    expect(empty).not.toContain('ci-bot');
    for (let i = 0; i < 3; i++) expect((await gatewayCall()).status).toBe(200);
    const live = await d.waitFor((x) => /ci-bot\s+3\s+0\s+\d+\s+150\s+█+/.test(x), 'the gateway calls to show up');
    expect(live).toContain('Requests, relative');
    expect(live).toContain('1 key · 3 requests');
  });

  it('switches to the last 7 days, with rejected calls and revoked keys named as such', async () => {
    const d = suite.render({ screen: 'usage' });
    await d.waitForText('ci-bot');
    await d.press('W');
    const f = await d.waitForText('Last 7 days');
    await d.waitFor((x) => /ci-bot\s+143\s+7\s+2\.5M\s+12\.2k\s+[·▁-█]+$/m.test(x), 'the week totals');
    expect(d.frame()).toMatch(/old-widget \(revoked\)\s+5\s+0/);
    expect(d.frame()).toContain('Requests per 3 h, oldest → now'); // 56 marks fit 120 columns
    expect(f).toBeTruthy();
  });

  it('fits 80 columns without wrapping', async () => {
    const d = suite.render({ screen: 'usage', columns: 80, rows: 24 });
    const f = await d.waitForText('ci-bot');
    for (const line of f.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(f).toMatch(/ci-bot\s+\d+\s+0\s+/);
    expect(f).toContain('Requests per hour');
    await d.press('W');
    const week = await d.waitForText('Requests per 8 h'); // 21 marks fit 80 columns
    expect(week).toMatch(/old-\S*… \(revoked\)\s+5\s+0/);
    for (const line of week.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('an auditor sees the same data; changing the range is not a change, so it stays enabled', async () => {
    const d = suite.render({ role: 'auditor', screen: 'usage' });
    await d.waitForText('READ-ONLY');
    await d.waitForText('ci-bot');
    const audit = suite.auditRows();
    // the ranges are not changes; only setting a quota (Enter on a key) is, and it is dimmed
    expect(d.frame()).toMatch(/H hour\s+D day\s+W 7 days\s+u set quota ✕/);
    expect(d.frame()).not.toMatch(/(hour|day|days) ✕/);
    await d.press('W');
    await d.waitForText('Last 7 days');
    expect(suite.auditRows()).toEqual(audit);
  });

  it('/ narrows the keys by name; Esc shows them all again', async () => {
    const d = suite.render({ screen: 'usage' });
    const all = await d.waitForText('reporting');
    expect(all.split('\n').at(-2)).toContain('/ filter');
    await d.press('/');
    await d.type('CI-');
    await d.press('enter');
    const f = await d.waitForText('1 of 2 keys match "CI-"');
    expect(f).toMatch(/ci-bot\s+\d+/);
    expect(f).not.toContain('reporting');
    expect(f).toContain('filter: CI-');
    await d.press('esc');
    await d.waitForText('reporting');
    await d.press('/');
    await d.type('nobody');
    await d.press('enter');
    const none = await d.waitForText('No key with traffic in this range matches "nobody"');
    expect(none).not.toContain('ci-bot');
  });

  it('keeps the last data and shows a refused poll in plain words with code and request id', async () => {
    const { token } = issueToken(suite.db, 'auditor', 'short-lived');
    const d = suite.render({ token, screen: 'usage' });
    await d.waitForText('ci-bot');
    revokeToken(suite.db, 'short-lived');
    const f = await d.waitForText('ERROR loading usage (showing the last data)');
    expect(f).toMatch(/code SVC-ADMIN-401 · request req_\w+/);
    expect(f).toContain('ci-bot');
  });
});
