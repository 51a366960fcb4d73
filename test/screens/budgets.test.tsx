import { describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/server.js';
import { afterARefresh, type DashboardHarness } from '../helpers/dashboard.js';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { recordJournal } from '../../src/server/governance/journal-writer.js';

const DEFAULTS = { tokens_per_run: 20000, tool_calls_per_run: 20, seconds_per_run: 300, tokens_per_day: null };
const suite = setupScreenSuite({
  setup: async (s) => {
    const put = await s.call('PUT', '/agent/budgets', {
      body: { defaults: DEFAULTS, agents: { 'hr-assistant': { tokens_per_day: 50000 } } },
    });
    expect(put.status).toBe(200);
    recordJournal(s.server.db, {
      run_id: 'run_1',
      agent: 'finance-analyst',
      channel: 'chan_web',
      step: 0,
      status: 'succeeded',
      started_ms: Date.now() - 60_000,
      ended_ms: Date.now() - 59_000,
      input_tokens: 10,
      output_tokens: 5,
    });
  },
});

interface Doc {
  defaults: Record<string, number | null>;
  agents: Record<string, Record<string, number | null>>;
}
const stored = () =>
  JSON.parse(suite.db.prepare("SELECT value FROM app_state WHERE key = 'budgets'").pluck().get() as string) as Doc;

/** Clears the focused form field. */
async function clear(h: DashboardHarness, n = 12) {
  await h.press(...Array<string>(n).fill('backspace'));
}

describe('budgets screen', () => {
  it('shows the defaults and each override; unlimited and inherited values in words', async () => {
    const d = suite.render({ screen: 'budgets' });
    const f = await d.waitForText('hr-assistant');
    expect(f).toMatch(/\(defaults\)\s+20,000\s+20\s+300\s+unlimited/);
    expect(f).toMatch(/hr-assistant\s+= default\s+= default\s+= default\s+50,000/);
    expect(f).toMatch(/1 agent override · changed \d{4}-\d\d-\d\d \d\d:\d\d UTC by alice-admin/);
  });

  it('edits the defaults through a form, on top of the latest document (a concurrent override survives)', async () => {
    const d = suite.render({ screen: 'budgets' });
    await d.waitForText('hr-assistant');
    await d.press('d');
    const form = await d.waitForText('Default agent budgets');
    expect(form).toMatch(/Tokens \/ run\s+20000/);
    expect(form).toMatch(/Tokens \/ day\s+unlimited/);
    // someone else adds an override while the form is open
    expect(
      (
        await suite.server.call('PUT', '/agent/budgets', {
          role: 'app_owner',
          body: { ...stored(), agents: { ...stored().agents, 'ops-bot': { seconds_per_run: 60 } } },
        })
      ).status,
    ).toBe(200);
    await d.press('tab', 'tab');
    await clear(d);
    await d.press('tab');
    await d.type('1000000');
    await d.press('enter');
    const result = await d.waitForText('Audit entry aud_');
    expect(result).toContain('Default budgets saved');
    expect(result).toContain('agent.budgets.update');
    expect(stored()).toEqual({
      defaults: { tokens_per_run: 20000, tool_calls_per_run: 20, seconds_per_run: null, tokens_per_day: 1000000 },
      agents: { 'hr-assistant': { tokens_per_day: 50000 }, 'ops-bot': { seconds_per_run: 60 } },
    });
    await d.press('enter');
    await d.waitFor(
      (x) => /\(defaults\)\s+20,000\s+20\s+unlimited\s+1,000,000/.test(x) && x.includes('ops-bot'),
      'the list to show the new defaults',
    );
  });

  it('adds an override for a typed agent name: empty fields stay absent (inherit), "unlimited" is null', async () => {
    const d = suite.render({ screen: 'budgets' });
    await d.waitForText('hr-assistant');
    await d.press('n');
    await d.waitForText('Budget override for which agent?');
    expect(d.frame()).toContain('finance-analyst'); // seen in the journal
    await d.press('enter'); // Type an agent name…
    await d.waitForText('New budget override');
    const before = suite.auditRows().length;
    await d.type('bad name!');
    await d.press('enter');
    await d.waitForText('letters, digits, . _ - ; starting with a letter or digit');
    await clear(d);
    await d.type('sales-bot');
    await d.press('enter');
    await d.waitForText('New budget override for sales-bot');
    await d.type('5000');
    await d.press('tab');
    await d.type('lots');
    await d.press('enter');
    await d.waitForText('Tool calls / run: a whole number, "unlimited", or empty');
    expect(suite.auditRows()).toHaveLength(before); // an invalid form sends nothing
    await clear(d);
    await d.type('unlimited');
    await d.press('enter');
    const result = await d.waitForText('Budgets saved');
    expect(result).toContain('Override for sales-bot:');
    expect(result).toMatch(
      /Tokens \/ run\s+5,000\s.*\n.*Tool calls \/ run\s+unlimited\s.*\n.*Seconds \/ run\s+= default\s.*\n.*Tokens \/ day\s+= default/,
    );
    expect(stored().agents['sales-bot']).toEqual({ tokens_per_run: 5000, tool_calls_per_run: null });
    await d.press('enter');
    await d.waitFor((x) => /sales-bot\s+5,000\s+unlimited\s+= default\s+= default/.test(x), 'the new override row');
  });

  it('picks an agent seen in the journal for a new override', async () => {
    const d = suite.render({ screen: 'budgets' });
    await d.waitForText('hr-assistant');
    await d.press('n');
    await d.waitForText('finance-analyst');
    await d.press('down', 'enter');
    await d.waitForText('New budget override for finance-analyst');
    await d.press('tab', 'tab', 'tab');
    await d.type('250000');
    await d.press('enter');
    await d.waitForText('Budgets saved');
    expect(stored().agents['finance-analyst']).toEqual({ tokens_per_day: 250000 });
  });

  it('edits an existing override: clearing a field makes it inherit again', async () => {
    const d = suite.render({ screen: 'budgets' });
    await d.waitForText('hr-assistant');
    await selectRow(d, 'hr-assistant');
    await d.press('e');
    const form = await d.waitForText('Budget override for hr-assistant');
    expect(form).toMatch(/Tokens \/ day\s+50000/);
    await d.type('8000');
    await d.press('tab', 'tab', 'tab');
    await clear(d);
    await d.press('enter');
    await d.waitForText('Budgets saved');
    expect(stored().agents['hr-assistant']).toEqual({ tokens_per_run: 8000 });
    // the defaults row offers no override edit or removal
    await d.press('enter');
    await d.press('esc');
    await d.press('home');
    await d.press('x');
    await d.waitForText('remove: not for the defaults row.');
  });

  it('removes an override only after confirming (Cancel is the default)', async () => {
    const d = suite.render({ screen: 'budgets' });
    await d.waitForText('ops-bot');
    await selectRow(d, 'ops-bot');
    await d.press('x');
    await d.waitForText('Remove the budget override for ops-bot?');
    await d.press('enter');
    await d.waitFor((f) => !f.includes('Remove the budget override'), 'the dialog to close');
    expect(stored().agents['ops-bot']).toBeDefined();
    await d.press('x');
    await d.waitForText('Remove the budget override for ops-bot?');
    await d.press('right', 'enter');
    await d.waitForText('Override removed');
    expect(stored().agents['ops-bot']).toBeUndefined();
    expect(stored().agents['hr-assistant']).toEqual({ tokens_per_run: 8000 });
  });

  it('agents named like Object.prototype members (constructor, toString, valueOf) are agents like any other', async () => {
    recordJournal(suite.db, {
      run_id: 'run_2',
      agent: 'valueOf',
      channel: 'chan_web',
      step: 0,
      status: 'succeeded',
      started_ms: Date.now() - 30_000,
      ended_ms: Date.now() - 29_000,
      input_tokens: 1,
      output_tokens: 1,
    });
    const d = suite.render({ screen: 'budgets' });
    await d.waitForText('hr-assistant');
    const before = suite.auditRows().length;
    const agents = stored().agents;
    const typeAgent = async (name: string) => {
      await d.press('n');
      await d.waitForText('Budget override for which agent?');
      await d.press('enter'); // Type an agent name…
      await d.waitForText('New budget override');
      await d.type(name);
      await d.press('enter');
    };

    // every field empty: nothing to save, nothing sent
    await typeAgent('constructor');
    await d.waitForText('New budget override for constructor');
    await d.press('enter');
    const nothing = await d.waitForText('Nothing saved');
    expect(nothing).toContain('Every field inherits the defaults, so constructor needs no override.');
    expect(suite.auditRows()).toHaveLength(before);
    expect(Object.hasOwn(stored().agents, 'constructor')).toBe(false);
    await d.press('enter');

    // a real override is created, shown, edited and removed
    await typeAgent('toString');
    await d.waitForText('New budget override for toString');
    await d.type('100');
    await d.press('enter');
    const saved = await d.waitForText('Budgets saved');
    expect(saved).toContain('Override for toString:');
    expect(saved).toMatch(/Tokens \/ run\s+100\s/);
    expect(stored().agents).toEqual({ ...agents, toString: { tokens_per_run: 100 } });
    await d.press('enter');
    await d.waitFor((x) => /toString\s+100\s+= default/.test(x), 'the toString row');
    await selectRow(d, 'toString');
    await d.press('x');
    await d.waitForText('Remove the budget override for toString?');
    await d.press('right', 'enter');
    await d.waitForText('Override removed');
    expect(stored().agents).toEqual(agents);
    await d.press('enter');

    // a journal agent named valueOf has no override, so it is offered
    await d.press('n');
    const pick = await d.waitForText('Budget override for which agent?');
    expect(pick).toContain('valueOf');
    await d.press('esc');
    const added = suite.auditRows().slice(before);
    expect(added.map((r) => r.action)).toEqual(['agent.budgets.update', 'agent.budgets.update']);
  });

  it('an auditor sees every budget change disabled with the reason, and pressing them sends nothing', async () => {
    const d = suite.render({ role: 'auditor', screen: 'budgets' });
    await d.waitForText('READ-ONLY');
    await d.waitForText('hr-assistant');
    await selectRow(d, 'hr-assistant');
    expect(d.frame()).toMatch(/d defaults ✕\s+e edit ✕\s+n add ✕\s+x remove ✕.*role auditor is read-only/);
    const audit = suite.auditRows();
    const state = snapshot(suite.server, 'app_state');
    for (const k of ['d', 'e', 'n', 'x']) {
      await d.press(k);
      await d.waitForText('Nothing was sent.');
      expect(d.frame()).not.toMatch(/Default agent budgets|Budget override for|Remove the budget/);
    }
    await afterARefresh(d);
    expect(suite.auditRows()).toEqual(audit);
    expect(snapshot(suite.server, 'app_state')).toEqual(state);
  });

  it('shows the appliance refusing the document in plain words with code and request id', async () => {
    // a stored document with an agent name the PUT contract refuses (written by hand or an older version)
    const doc = { ...stored(), agents: { ...stored().agents, 'legacy agent': { tokens_per_run: 1 } } };
    suite.db.prepare("UPDATE app_state SET value = ? WHERE key = 'budgets'").run(JSON.stringify(doc));
    const d = suite.render({ screen: 'budgets' });
    await d.waitForText('legacy agent');
    await d.press('d');
    await d.waitForText('Default agent budgets');
    await d.press('tab', 'tab', 'tab');
    await d.type('777'); // a change, or nothing would be sent
    await d.press('enter');
    const f = await d.waitForText('defaults failed');
    const failed = suite
      .auditRows()
      .filter((r) => r.action === 'agent.budgets.update' && r.outcome === 'failed')
      .at(-1)!;
    expect(failed.status).toBe(400);
    expect(f).toContain('code SVC-ADMIN-400');
    expect(f).toContain(`request ${failed.request_id}`);
    expect(f).toContain('legacy agent');
    expect(stored()).toEqual(doc);
    await d.press('enter');
    // the form comes back with what was sent; Esc gives up
    await d.waitFor(
      (x) => x.includes('Default agent budgets') && /Tokens \/ day\s+\d*777\b/.test(x),
      'the form again, as sent',
    );
    await d.press('esc');
    await d.waitFor(
      (x) => !x.includes('defaults failed') && !x.includes('Default agent budgets') && x.includes('hr-assistant'),
      'the screen to keep working',
    );
  });
});
