import { describe, expect, it } from 'vitest';
import { snapshot, startTestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { recordEuros } from '../helpers/seed-gateway-keys.js';
import { afterARefresh } from '../helpers/dashboard.js';
import { epochMinute } from '../../src/server/gateway/metering.js';

/**
 * The keys screen's and the overview's part of issue 41 §5 against the real server: the Spend
 * column (today against the day budget, sorted by the share of the fullest budget), B set budget
 * through a form, the overview's WARN line for a key past its warning share; an auditor sees B disabled.
 */
const suite = setupScreenSuite({
  start: () =>
    startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          pricing: { currency: 'EUR', models: { 'llama-3.1-8b': { input_per_million: 3, output_per_million: 15 } } },
        }),
    }),
  setup: async (s) => {
    for (const body of [
      { name: 'near-cap', budget: { per_day: 1, per_month: null } },
      { name: 'month-gone', budget: { per_day: null, per_month: 10, warn_percent: 90 } },
      { name: 'calm-budget', budget: { per_day: 20, per_month: null } },
      { name: 'no-budget' },
      { name: 'budget-me' },
    ])
      expect((await s.call('POST', '/gateway/keys', { body })).status).toBe(201);
    // spend as the front door records it, this minute
    const spend = (name: string, euros: number) =>
      recordEuros(
        s.server.db,
        s.server.db.prepare('SELECT id FROM gateway_keys WHERE name = ?').pluck().get(name) as string,
        epochMinute(Date.now()),
        euros,
      );
    spend('near-cap', 0.85);
    spend('month-gone', 10);
    spend('calm-budget', 2);
    spend('no-budget', 0.42);
  },
});

const header = (f: string) => f.split('\n').find((l) => l.trimStart().startsWith('Name')) ?? '';
const rowOf = (f: string, name: string) => f.split('\n').find((l) => l.slice(2).startsWith(name)) ?? '';
const hints = (f: string) => f.split('\n').find((l) => l.startsWith('n new')) ?? '';
const budgetOf = (name: string) =>
  suite.db
    .prepare(
      'SELECT budget_per_day_nanos AS day, budget_per_month_nanos AS month, budget_warn_percent AS warn FROM gateway_keys WHERE name = ?',
    )
    .get(name);

describe('keys screen: money budgets', () => {
  it('at 120x40: the Spend column says today against the day budget, the cursor line says the budget; s sort stays on the hint line, B is in the help', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await selectRow(d, 'near-cap');
    const f = await d.waitFor((x) => x.includes('budget 1 EUR a day'), 'the budget on the cursor line');
    expect(header(f)).toMatch(/Quota rpm\/tpm\/tpd\s+Spend/);
    expect(rowOf(f, 'near-cap')).toMatch(/0\.85\/1 EUR 85%/);
    expect(f).toMatch(/near-cap: .*budget 1 EUR a day \(warns at 80%\) · spent 0\.85 EUR today, 0\.85 EUR this month/);
    expect(hints(f)).toMatch(/\bs sort\b/);
    await d.press('?');
    const help = await d.waitForText('Actions on this screen (keys)');
    expect(help).toMatch(/B +set budget \(changes the appliance\)/);
    await d.press('esc');
    await d.waitFor((x) => !x.includes('Help · Esc'), 'help closed');
    await d.press('esc');
    const all = await d.waitFor((x) => rowOf(x, 'no-budget') !== '', 'every key');
    expect(rowOf(all, 'month-gone')).toMatch(/10\.00\/10 EUR\/mo 100%/);
    expect(rowOf(all, 'no-budget')).toMatch(/0\.42 EUR/);
    expect(all.split('\n').every((l) => l.length <= 120)).toBe(true);
  });

  it('B sets a budget through the form, audited with from and to; emptied fields clear it', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await selectRow(d, 'budget-me');
    await d.press('B');
    const form = await d.waitForText('Budget of budget-me');
    expect(form).toContain('Per UTC day (EUR)');
    expect(form).toContain('Per month (EUR)');
    expect(form).toContain('Warn at (%)');
    await d.type('x');
    await d.press('enter');
    await d.waitForText('an amount such as 5 or 12.50');
    expect(budgetOf('budget-me')).toEqual({ day: null, month: null, warn: 80 });
    await d.press('backspace');
    await d.type('4.5');
    await d.press('tab');
    await d.type('60');
    await d.press('enter');
    const done = await d.waitForText('Audit entry aud_');
    expect(done).toContain('Budget set');
    expect(done).toMatch(/budget-me: budget 4\.50 EUR a day, 60 EUR a month \(warns at 80%\)/);
    expect(budgetOf('budget-me')).toEqual({ day: 4.5e9, month: 60e9, warn: 80 });
    const entry = suite.auditRows().filter((r) => r.action === 'gateway.key.budget');
    expect(entry).toHaveLength(1);
    expect(JSON.parse(entry[0].details)).toMatchObject({
      from: { per_day: null, per_month: null },
      to: { per_day: 4.5, per_month: 60, warn_percent: 80 },
    });
    await d.press('enter');
    await d.press('B');
    await d.waitForText('Budget of budget-me');
    // the prefilled amount is selected: one key empties it
    await d.press('backspace');
    await d.press('tab');
    await d.press('backspace');
    await d.press('enter');
    await d.waitForText('Budget cleared');
    expect(budgetOf('budget-me')).toEqual({ day: null, month: null, warn: 80 });
  });

  it('sorted by Spend, descending: the keys nearest their budgets first, then those without one', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await d.waitForText('calm-budget');
    await d.press('s', 's', 's', 's', 's'); // Name, Status, Prefix, Quota, Spend
    await d.waitFor((f) => header(f).includes('Spend ▲'), 'Spend marked ascending');
    await d.press('S');
    const desc = await d.waitFor((f) => header(f).includes('Spend ▼'), 'Spend marked descending');
    const order = desc
      .split('\n')
      .map((l) => l.slice(2).split(/\s+/)[0])
      .filter((n) => ['near-cap', 'month-gone', 'calm-budget', 'no-budget', 'budget-me'].includes(n));
    expect(order.slice(0, 3)).toEqual(['month-gone', 'near-cap', 'calm-budget']);
    expect(order.indexOf('no-budget')).toBeGreaterThan(2);
  });

  it('a list the U filter empties says so, not that there are no keys', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await d.waitForText('calm-budget');
    // every key here was created today: none is unused for 30 days
    await d.press('U');
    const none = await d.waitForText('No key here:');
    expect(none).toContain(
      'No key here: active keys unused for 30 days. U shows the next filter, then every key again.',
    );
    expect(none).not.toContain('No gateway keys yet');
  });

  it('the overview warns of a key past its warning share and of one at its budget, and opens the keys screen on it', async () => {
    const d = suite.render({ screen: 'overview', columns: 200, rows: 40 });
    const board = await d.waitForText('Key near-cap');
    expect(board).toMatch(
      /WARN\s+Key month-gone\s+at its money budget: spent 10\.00 of 10 EUR this month \(100%; warns at 90%\)/,
    );
    expect(board).toMatch(
      /WARN\s+Key near-cap\s+near its money budget: spent 0\.85 of 1 EUR today \(85%; warns at 80%\)/,
    );
    expect(board).not.toContain('Key calm-budget');
    await d.waitFor((f) => f.split('\n').some((l) => l.startsWith('›')), 'a selected line');
    for (let i = 0; i < 20 && !/^›.*Key near-cap/m.test(d.frame()); i++) await d.press('j');
    await d.press('enter');
    const keys = await d.waitFor((f) => f.includes('[keys]') && /^›.*near-cap/m.test(f), 'the keys screen on near-cap');
    expect(keys).toContain('budget 1 EUR a day');
  });

  it('an auditor sees B disabled with the reason and pressing it sends nothing', async () => {
    // wide enough for B on the hint line beside the reason
    const d = suite.render({ role: 'auditor', screen: 'keys', columns: 200, rows: 40 });
    await d.waitForText('READ-ONLY');
    await selectRow(d, 'near-cap');
    expect(d.frame()).toMatch(/B set budget ✕.*role auditor is read-only/);
    const audit = suite.auditRows();
    const keys = snapshot(suite.server, 'gateway_keys');
    await d.press('B');
    await d.waitFor((f) => f.includes('disabled: role auditor is read-only. Nothing was sent.'), 'B explained');
    expect(d.frame()).not.toContain('Budget of near-cap');
    await afterARefresh(d);
    expect(suite.auditRows()).toEqual(audit);
    expect(snapshot(suite.server, 'gateway_keys')).toEqual(keys);
  });
});
