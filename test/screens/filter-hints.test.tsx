import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';

const suite = setupScreenSuite();

/**
 * A filter's hint in the f form names the list's key that sets it without typing: that key, not
 * one it had before the keys were made one per meaning (issue 38: the journal's "this run" is o,
 * the audit trail's action pick list A); u and a do nothing there.
 */
describe("a history filter form's hints name the keys that do what they say", () => {
  it("the journal's Run filter says o sets it from a row", async () => {
    const d = suite.render({ screen: 'journal', columns: 120, rows: 40 });
    await d.waitForText('journal entries');
    await d.press('f');
    await d.waitForText('Filter the agent journal');
    await d.press('down', 'down', 'down', 'down', 'down', 'down'); // range, from, until, agent, status, channel → run
    const f = await d.waitForText(/› Run/);
    expect(f).toContain('one run id (o on a row sets it); empty = every run');
  });

  it("the audit trail's Action filter says, whole at 120 columns, that A on the list picks one", async () => {
    const d = suite.render({ screen: 'audit', columns: 120, rows: 40 });
    await d.waitForText('audit entries');
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('down', 'down', 'down', 'down'); // range, from, until, actor → action
    const f = await d.waitForText(/› Action/);
    expect(f).toMatch(/ exact or gateway\.key\.\* \(a prefix\); empty = any; A on the list picks one +│/);
  });
});
