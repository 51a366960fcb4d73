import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { knownActions } from '../../screens/audit.js';

const suite = setupScreenSuite({
  setup: async (s) => {
    // one entry of each kind the appliance records without a route of its own, and a few with
    expect((await s.call('POST', '/gateway/keys', { body: { name: 'pick-me' } })).status).toBe(201);
    expect((await s.call('PUT', '/routing/chat', { body: { model_id: 'mistral-7b' } })).status).toBe(200);
    expect((await s.call('GET', '/audit/export?format=csv')).status).toBe(200);
    expect((await s.call('GET', '/agent/journal/export?format=jsonl')).status).toBe(200);
    expect((await s.call('PUT', '/settings', { body: {} })).status).toBe(405);
  },
});

const known = knownActions().map((k) => k.value);
const tableRows = (f: string) => f.split('\n').filter((l) => /^[› ] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /.test(l));
/** The pick list: any, then each family (audit.*: export and seal; gateway.key.*), then every action in order. */
const PICKS = ['', 'audit.*', 'gateway.key.*', ...[...known].sort()];

describe('audit action filter: a pick list of the actions the appliance records', () => {
  it('knows every action the server has recorded, those of no route too', () => {
    const recorded = new Set(suite.auditRows().map((r) => r.action));
    for (const a of ['audit.export', 'journal.export', 'settings.update', 'gateway.key.create', 'routing.update'])
      expect(recorded).toContain(a);
    for (const a of recorded) expect(known).toContain(a);
  });

  it('A picks an action, a family or any: the appliance filters, and the f form shows the pick', async () => {
    const d = suite.render({ screen: 'audit', rows: 40 });
    await d.waitForText('settings.update');
    expect(d.frame()).toMatch(/A pick action/);
    await d.press('A');
    const list = await d.waitForText('Show one action');
    expect(list).toMatch(/› any action\s+\(current\) no filter/);
    expect(list).toMatch(/gateway\.key\.\*\s+every gateway\.key action/);
    for (const a of known) expect(list).toContain(a);
    expect(list).toMatch(/settings\.update\s+A write to the read-only settings/);
    expect(list).toMatch(/routing\.update\s+Set the model serving a workload/);

    await d.press(...Array<string>(PICKS.indexOf('settings.update')).fill('down'), 'enter');
    const only = await d.waitForText('action settings.update');
    await d.waitFor(
      (f) => tableRows(f).length === 1 && tableRows(f)[0].includes('settings.update'),
      'only the settings entry',
    );
    expect(only).toContain('page 1 · 50 per page');

    // the f form starts from the pick, and the list marks it as current
    await d.press('f');
    expect(await d.waitForText('Filter the audit trail')).toMatch(/Action\s+settings\.update/);
    await d.press('esc');
    await d.press('A');
    expect(await d.waitForText('Show one action')).toMatch(
      /settings\.update\s+\(current\) A write to the read-only settings/,
    );

    await d.press('down', 'down', 'enter'); // gateway.key.*
    await d.waitForText('action gateway.key.*');
    const family = await d.waitFor(
      (f) => tableRows(f).length > 0 && tableRows(f).every((r) => /gateway\.key\./.test(r)),
      'gateway.key rows only',
    );
    expect(tableRows(family).some((r) => r.includes('gateway.key.create'))).toBe(true);

    await d.press('A');
    await d.waitForText('Show one action');
    await d.press('enter'); // any action
    await d.waitFor(
      (f) => !f.includes('action gateway.key.*') && tableRows(f).some((r) => r.includes('audit.export')),
      'every action again',
    );
  });

  it('at 80x24 the pick list says how many actions are out of sight, below and above', async () => {
    const d = suite.render({ screen: 'audit', columns: 80, rows: 24 });
    await d.waitForText('settings.update');
    await d.press('A');
    const top = await d.waitForText('Show one action');
    const last = PICKS.at(-1)!;
    expect(top).not.toContain(last);
    const below = /… (\d+) more below/.exec(top);
    expect(below).not.toBeNull();
    const shown = PICKS.filter((p) => p && new RegExp(`^\\s*│ [› ] ${p.replace(/[.*]/g, '\\$&')} `, 'm').test(top));
    expect(shown.length + 1 + Number(below![1])).toBe(PICKS.length); // + "any action"
    await d.press('end');
    const end = await d.waitForText(new RegExp(`› ${last.replace(/\./g, '\\.')}`));
    expect(end).toMatch(/… \d+ above/);
    expect(end).not.toContain('more below');
    await d.press('esc');
  });
});
