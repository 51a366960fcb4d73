import { describe, expect, it } from 'vitest';
import { openLink } from '../../src/dashboard/shell/navigate.js';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { selectRow, setupScreenSuite } from '../helpers/screen-suite.js';

/**
 * The hint line promises only what the keys do where they are now: in a detail view Enter closes
 * it (it opens nothing more), / and s do nothing, and Esc closes the detail rather than going back. On a
 * screen a link opened, Esc unwinds the innermost state first (as in k9s and lazygit): a `/` filter is
 * cleared before it goes back, and the hint says each step in turn.
 */
const suite = setupScreenSuite({
  setup: async (s) => {
    // a key with an entry in the audit trail: its creation
    expect((await s.call('POST', '/gateway/keys', { body: { name: 'hinted-key' } })).status).toBe(201);
  },
});

const header = (f: string) => f.split('\n')[1] ?? '';
/** the key hints: the last line offering ? help */
const hints = (f: string) =>
  f
    .split('\n')
    .filter((l) => l.includes('? help'))
    .at(-1) ?? '';

/** From models, h on Mistral 7B: its audit history, searching its id, with the way back to models. */
async function historyOfAModel(d: DashboardHarness) {
  await selectRow(d, 'Mistral 7B');
  await d.press('h');
  return d.waitFor((f) => header(f).includes('[audit]') && f.includes('match "mistral-7b"'), 'the model history');
}

describe('the hint line in a detail view', () => {
  it('offers Enter as what it does there, close, and neither / nor s, which do nothing there', async () => {
    const d = suite.render({ screen: 'connectors', columns: 120, rows: 40 });
    const list = await d.waitForText('Cloud CRM');
    expect(hints(list)).toMatch(/⏎ detail .*\/ filter {2}s sort/);
    await d.press('enter');
    const detail = await d.waitForText('Detail: conn_');
    expect(hints(detail)).toMatch(/│ ⏎ close {2}/);
    expect(hints(detail)).not.toMatch(/⏎ detail|\/ filter|s sort/);
    // / and s do nothing here (the detail stays, no filter field opens); Enter does close it
    await d.press('/', 's');
    expect(d.frame()).toContain('Detail: conn_');
    await d.press('enter');
    const closed = await d.waitFor((f) => !f.includes('Detail:'), 'the detail closed by Enter');
    expect(hints(closed)).toMatch(/⏎ detail .*\/ filter {2}s sort/);
  });

  it('on a screen a link opened it promises no way back: Esc closes the detail, and only then offers it', async () => {
    const d = suite.render({ screen: 'channels', columns: 120, rows: 40 });
    await d.waitForText('Web chat');
    // as Enter on an overview line about a connector opens it
    openLink(d.deps.ui, d.deps.screens, { screen: 'connectors', select: 'conn_crm' });
    await d.waitFor(
      (f) => f.split('\n').some((l) => l.startsWith('› Cloud CRM')) && hints(f).includes('Esc back to channels'),
      'connectors, on Cloud CRM, with the way back',
    );
    await d.press('enter');
    const detail = await d.waitForText('Detail: conn_crm');
    expect(hints(detail)).not.toMatch(/Esc|back to/);
    await d.press('esc');
    const list = await d.waitFor((f) => !f.includes('Detail:'), 'the detail closed by Esc');
    expect(header(list)).toContain('[connectors]');
    expect(hints(list)).toContain('Esc back to channels');
  });
});

describe('Esc on a screen a link opened, with a filter set', () => {
  it('the hint says clear filter while Esc clears it, then back to models, and each Esc does what it said', async () => {
    const d = suite.render({ screen: 'models', columns: 120, rows: 40 });
    const f = await historyOfAModel(d);
    expect(hints(f)).toContain('│ Esc clear filter  ? help');
    expect(hints(f)).not.toContain('back to models');
    await d.press('esc');
    const cleared = await d.waitFor((x) => !x.includes('match "mistral-7b"'), 'the search cleared');
    expect(header(cleared)).toContain('[audit]');
    await d.waitFor((x) => hints(x).includes('Esc back to models'), 'the way back offered');

    // typing a filter: Esc in the field clears it, and the hint says so meanwhile
    await d.press('/');
    await d.waitFor((x) => hints(x).includes('Esc clear filter'), 'clear filter while typing');
    await d.press('esc');
    await d.waitFor((x) => hints(x).includes('Esc back to models'), 'the way back again');
    expect(header(d.frame())).toContain('[audit]');

    await d.press('esc');
    await d.waitFor((x) => header(x).includes('[models]'), 'back on models');
  });

  it('at 80x24 it says its short word, clear, then back', async () => {
    const d = suite.render({ screen: 'models', columns: 80, rows: 24 });
    const f = await historyOfAModel(d);
    expect(hints(f)).toMatch(/│ Esc clear {2}\? help/);
    await d.press('esc');
    await d.waitFor((x) => /│ Esc back {2}\? help/.test(hints(x)), 'the way back offered');
    await d.press('esc');
    await d.waitFor((x) => header(x).includes('[models]'), 'back on models');
  });

  it('in a detail there it promises no way back, as Esc closes the detail; then clear filter, then back', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await selectRow(d, 'hinted-key');
    await d.press('h');
    await d.waitFor(
      (x) => header(x).includes('[audit]') && x.split('\n').some((l) => l.startsWith('› ') && l.includes('hinted-key')),
      "the key's history, its creation listed",
    );
    await d.press('enter');
    const detail = await d.waitForText('Detail: aud_');
    expect(hints(detail)).not.toMatch(/Esc|back to|clear filter/);
    await d.press('esc');
    const list = await d.waitFor((x) => !x.includes('Detail:') && hints(x).includes('Esc clear filter'), 'the list');
    expect(header(list)).toContain('[audit]');
    await d.press('esc');
    await d.waitFor((x) => hints(x).includes('Esc back to keys'), 'the search cleared');
    await d.press('esc');
    await d.waitFor((x) => header(x).includes('[keys]'), 'back on keys');
  });
});
