import { describe, expect, it } from 'vitest';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';

/**
 * Two operators on the budgets at once: a save writes only the fields this operator changed onto
 * the latest document, and a field both changed is asked about (theirs vs yours), never
 * silently overwritten.
 */
const DEFAULTS = { tokens_per_run: 20000, tool_calls_per_run: 20, seconds_per_run: 300, tokens_per_day: null };
const suite = setupScreenSuite({
  setup: async (s) => {
    const put = await s.call('PUT', '/agent/budgets', {
      body: { defaults: DEFAULTS, agents: { 'sales-copilot': { tokens_per_run: 64000, seconds_per_run: 600 } } },
    });
    expect(put.status).toBe(200);
  },
});

interface Doc {
  defaults: Record<string, number | null>;
  agents: Record<string, Record<string, number | null>>;
}
const stored = () =>
  JSON.parse(suite.db.prepare("SELECT value FROM app_state WHERE key = 'budgets'").pluck().get() as string) as Doc;

/** What another operator (app_owner) saves while the form is open. */
async function otherOperatorSets(change: (doc: Doc) => void) {
  const doc = stored();
  change(doc);
  expect((await suite.server.call('PUT', '/agent/budgets', { role: 'app_owner', body: doc })).status).toBe(200);
}

async function clear(h: DashboardHarness, n = 12) {
  await h.press(...Array<string>(n).fill('backspace'));
}

async function openOverride(d: DashboardHarness) {
  await d.waitForText('sales-copilot');
  await selectRow(d, 'sales-copilot');
  await d.press('e');
  return d.waitForText('Budget override for sales-copilot');
}

const lastUpdateBy = (subject: string) =>
  suite
    .auditRows()
    .filter((r) => r.action === 'agent.budgets.update' && r.actor_subject === subject && r.outcome === 'success')
    .at(-1)!;

describe("budgets: saving onto another operator's change", () => {
  it('an override edit writes only the field changed here; a concurrent change to another field survives', async () => {
    const d = suite.render({ screen: 'budgets' });
    const form = await openOverride(d);
    expect(form).toMatch(/Tokens \/ run\s+64000/);
    expect(form).toMatch(/Seconds \/ run\s+600/);
    await otherOperatorSets((doc) => {
      doc.agents['sales-copilot'].seconds_per_run = 900;
    });
    await clear(d);
    await d.type('50000');
    await d.press('enter');
    await d.waitForText('Budgets saved');
    expect(stored().agents['sales-copilot']).toEqual({ tokens_per_run: 50000, seconds_per_run: 900 });
    // the audit entry says only what this operator changed
    const changes = JSON.parse(lastUpdateBy('alice-admin').details).changes as { field: string }[];
    expect(changes.map((c) => c.field)).toEqual(['agents.sales-copilot.tokens_per_run']);
  });

  it('a field both changed: theirs vs yours is shown; Cancel saves nothing, Overwrite saves yours', async () => {
    const d = suite.render({ screen: 'budgets' });
    const form = await openOverride(d);
    expect(form).toMatch(/Seconds \/ run\s+900/);
    await otherOperatorSets((doc) => {
      doc.agents['sales-copilot'].seconds_per_run = 1200;
    });
    await d.press('tab', 'tab');
    await clear(d);
    await d.type('700');
    await d.press('enter');
    const ask = await d.waitForText('changed since you opened the form');
    expect(ask).toContain('The override for sales-copilot');
    expect(ask).toMatch(/Seconds \/ run\s+theirs 1,200 · yours 700 \(was 900\)/);
    expect(ask).toContain('olga-owner');
    const audit = suite.auditRows().length;
    await d.press('enter'); // Cancel is the default
    await d.waitForText('Nothing saved');
    expect(stored().agents['sales-copilot']).toEqual({ tokens_per_run: 50000, seconds_per_run: 1200 });
    expect(suite.auditRows()).toHaveLength(audit);
    await d.press('enter');

    await d.press('e'); // the row is still selected
    await d.waitForText('Budget override for sales-copilot');
    await otherOperatorSets((doc) => {
      doc.agents['sales-copilot'].seconds_per_run = 1500;
    });
    await d.press('tab', 'tab');
    await clear(d);
    await d.type('700');
    await d.press('enter');
    await d.waitForText('changed since you opened the form');
    await d.press('right', 'enter');
    await d.waitForText('Budgets saved');
    expect(stored().agents['sales-copilot']).toEqual({ tokens_per_run: 50000, seconds_per_run: 700 });
  });

  it('the defaults form writes only the defaults changed here', async () => {
    const d = suite.render({ screen: 'budgets' });
    await d.waitForText('sales-copilot');
    await d.press('d');
    await d.waitForText('Default agent budgets');
    await otherOperatorSets((doc) => {
      doc.defaults.tokens_per_day = 123456;
    });
    await clear(d);
    await d.type('30000');
    await d.press('enter');
    await d.waitForText('Default budgets saved');
    expect(stored().defaults).toEqual({ ...DEFAULTS, tokens_per_run: 30000, tokens_per_day: 123456 });
  });

  it('a form saved unchanged sends nothing', async () => {
    const d = suite.render({ screen: 'budgets' });
    await openOverride(d);
    const audit = suite.auditRows().length;
    await d.press('enter');
    await d.waitForText('You changed no value of sales-copilot');
    expect(suite.auditRows()).toHaveLength(audit);
  });
});
