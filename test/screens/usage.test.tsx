import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { recordRefusedWorkload, recordUsage, epochMinute } from '../../src/server/gateway/metering.js';
import { issueToken, revokeToken } from '../../src/server/tokens.js';
import { groupSums, usageWindow } from '../../screens/usage.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
let ciSecret: string;
let refusedMinute: string;

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
    recordUsage(s.server.db, old.id, epochMinute(now - 110 * HOUR), { requests: 12_340 });
    // half an hour ago reporting was refused: 4 over its quota, 2 to a workload it asked for by an old name
    const refusedAt = epochMinute(now - 30 * MINUTE);
    recordUsage(s.server.db, reporting.id, refusedAt, {
      rejected_by: { requests_per_minute: 4, unknown_workload: 2 },
    });
    recordRefusedWorkload(s.server.db, reporting.id, refusedAt, 'summarize-v0', 2);
    refusedMinute = new Date(refusedAt * MINUTE).toISOString().slice(11, 16);
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

  it('charts whole sums of buckets, newest last', () => {
    expect(groupSums([1, 2, 3, 4, 5], 2)).toEqual([1, 5, 9]);
  });
});

/** The table's line of one key. */
const rowOf = (f: string, name: string) => f.split('\n').find((l) => l.slice(2).startsWith(name)) ?? '';

describe('usage screen', () => {
  it('shows the last 24 hours per key by name: requests, rejected, tokens and an hourly chart', async () => {
    const d = suite.render({ screen: 'usage' });
    const f = await d.waitForText('ci-bot');
    expect(f).toMatch(
      /Last 24 hours by hour · 2 keys · 50 requests · 6 rejected · \d{4}-\d\d-\d\d \d\d:00 → (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC/,
    );
    expect(f).toContain('Requests (× refused), oldest → now');
    expect(rowOf(f, 'ci-bot')).toMatch(/ci-bot\s+40\s+0\s+–\s+40k\s+12k\s+[·]*█[·]+$/);
    expect(rowOf(f, 'ci-bot').trimEnd().length).toBeLessThanOrEqual(120);
    // reporting's refused hour is marked ×, after its served one
    expect(rowOf(f, 'reporting')).toMatch(/reporting\s+10\s+6\s+–\s+900\s+300\s+[·]+█[·]*×[·]*$/);
    expect(f).not.toContain('old-widget'); // no traffic in these 24 hours
  });

  it('shows the last hour by minute: when the refusals stopped, and live gateway calls in the newest minute', async () => {
    const d = suite.render({ screen: 'usage' });
    await d.waitForText('ci-bot');
    await d.press('H');
    const f = await d.waitForText('Last hour by minute');
    expect(f).toMatch(/Last hour by minute · 1 key · 0 requests · 6 rejected · \d{4}-\d\d-\d\d \d\d:\d\d → /);
    expect(f).not.toContain('ci-bot');
    // one mark a minute: the refused minute half an hour back, nothing since
    const chart = /reporting\s+0\s+6\s+–\s+0\s+0\s+(\S+)$/m.exec(f)?.[1] ?? '';
    expect(chart).toMatch(/^·*×·{28,30}$/);
    // the cursor's line says it in words, with the names asked for
    expect(f).toContain(
      `reporting: last refused in the minute of ${refusedMinute} UTC, none since · unknown workloads asked for: summarize-v0 ×2`,
    );
    for (let i = 0; i < 3; i++) expect((await gatewayCall()).status).toBe(200);
    const live = await d.waitFor(
      (x) => /ci-bot\s+3\s+0\s+–\s+\d+\s+150\s+·*█·?$/m.test(x),
      'the gateway calls to show up',
    );
    expect(live).toContain('2 keys · 3 requests · 6 rejected');
  });

  it('Enter on a key: its refusals by cause beside its quota, the workload names, and since the quota changed', async () => {
    const d = suite.render({ screen: 'usage' });
    await d.waitForText('reporting');
    await d.press('/');
    await d.type('reporting');
    await d.press('enter');
    await d.waitForText('1 of 2 match "');
    await d.press('enter');
    const f = await d.waitForText('unknown workloads asked for');
    expect(f).toMatch(/last refused\s+(refused in the current hour|last refused in the hour of)/);
    expect(f).toMatch(/rejected: requests\/min\s+4 {2}\(quota unlimited requests\/min\)/);
    expect(f).toMatch(/unknown workloads asked for\s+summarize-v0 ×2/);
    // the refusals were before the key's creation (seeded history): none since its quota was set
    expect(f).toMatch(/since the quota changed\s+0 rejected \(quota set at creation \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
  });

  it('sorts by a column with s, by the figure rather than its text', async () => {
    const d = suite.render({ screen: 'usage' });
    await d.waitForText('reporting');
    const keys = (f: string) =>
      f
        .split('\n')
        .map((l) => /^[› ] (ci-bot|reporting)\s/.exec(l)?.[1])
        .filter(Boolean);
    expect(keys(d.frame())).toEqual(['ci-bot', 'reporting']); // the appliance's order: most requests first
    await d.press('s', 's', 's'); // Key, Requests, Rejected
    const byRejected = await d.waitFor((f) => /Rejected ▲/.test(f), 'sorted by Rejected');
    expect(keys(byRejected)).toEqual(['ci-bot', 'reporting']);
    await d.press('S');
    const flipped = await d.waitFor((f) => /Rejected ▼/.test(f), 'flipped');
    expect(keys(flipped)).toEqual(['reporting', 'ci-bot']);
  });

  it('switches to the last 7 days, with rejected calls and revoked keys named as such, counts with thousands separators', async () => {
    const d = suite.render({ screen: 'usage' });
    await d.waitForText('ci-bot');
    await d.press('W');
    await d.waitForText('Last 7 days by 4 h');
    const f = await d.waitFor((x) => /ci-bot\s+14\d\s+7\s+–\s+2\.5M\s+12\.2k\s+[·▁-█×]+$/m.test(x), 'the week totals');
    expect(f).toMatch(/old-widget \(revoked\)\s+12,345\s+0/);
  });

  it('fits 80 columns without wrapping, the chart keeping its newest marks', async () => {
    const d = suite.render({ screen: 'usage', columns: 80, rows: 24 });
    const f = await d.waitForText('ci-bot');
    for (const line of f.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(rowOf(f, 'ci-bot')).toMatch(/ci-bot\s+\d+\s+0\s+/);
    // the totals come before the times, which the line's end may cut
    expect(f).toMatch(/Last 24 hours by hour · 2 keys · \d+ requests · 6 rejected · \d{4}/);
    await d.press('W');
    const week = await d.waitForText('old-widget (revoked)');
    for (const line of week.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it("m opens the key's cost by model over the window read here, not spend's own default", async () => {
    const d = suite.render({ screen: 'usage' });
    await d.waitForText('Last 24 hours by hour');
    await d.press('/');
    await d.type('ci-bot');
    await d.press('enter');
    await d.waitForText('1 of 2 match "');
    await d.press('m');
    const f = await d.waitFor((x) => x.includes('[spend]') && /Last 24 hours by hour/.test(x), 'spend over the day');
    expect(f).toContain('key ci-bot');
    await d.press('esc');
    await d.waitForText('[usage]');
    await d.press('W');
    await d.waitForText('Last 7 days by 4 h');
    await d.press('m');
    await d.waitFor((x) => x.includes('[spend]') && /Last 7 days by day/.test(x), 'spend over the week');
  });

  it('an auditor sees the same data; changing the range is not a change, so it stays enabled', async () => {
    const d = suite.render({ role: 'auditor', screen: 'usage' });
    await d.waitForText('READ-ONLY');
    await d.waitForText('ci-bot');
    const audit = suite.auditRows();
    // the ranges are not changes; only setting a quota is, and it is dimmed
    expect(d.frame()).toMatch(/H hour\s+D day\s+W 7 days\s+u set quota ✕/);
    expect(d.frame()).not.toMatch(/(hour|day|days) ✕/);
    await d.press('W');
    await d.waitForText('Last 7 days');
    expect(suite.auditRows()).toEqual(audit);
  });

  it('/ narrows the keys by name; Esc shows them all again', async () => {
    const d = suite.render({ screen: 'usage' });
    await d.waitForText('reporting');
    await d.press('/');
    await d.type('CI-');
    await d.press('enter');
    const f = await d.waitForText('1 of 2 match "');
    expect(rowOf(f, 'ci-bot')).toMatch(/ci-bot\s+\d+/);
    expect(rowOf(f, 'reporting')).toBe('');
    await d.press('esc');
    await d.waitFor((x) => rowOf(x, 'reporting') !== '', 'every key again');
  });

  it('keeps the last data and shows a refused poll in plain words with code and request id', async () => {
    const { token } = issueToken(suite.db, 'auditor', 'short-lived');
    const d = suite.render({ token, screen: 'usage' });
    await d.waitForText('ci-bot');
    revokeToken(suite.db, 'short-lived');
    const f = await d.waitForText('(showing the last data)');
    expect(f).toMatch(/code SVC-ADMIN-401 · request req_\w+/);
    expect(f).toContain('ci-bot');
  });
});
