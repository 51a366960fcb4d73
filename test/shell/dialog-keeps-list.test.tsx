import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { openDialog } from '../../src/dashboard/state/dialogs.js';

const KEYS = 30;
const suite = setupScreenSuite({
  setup: async (s) => {
    for (let i = 1; i <= KEYS; i++) {
      const res = await s.call('POST', '/gateway/keys', { body: { name: `dlg-key-${String(i).padStart(2, '0')}` } });
      expect(res.status).toBe(201);
    }
  },
});

const plain = (f: string) => f.replace(/\x1b\[[0-9;]*m/g, '');
const cursorLine = (f: string) =>
  plain(f)
    .split('\n')
    .find((l) => l.startsWith('› ')) ?? null;
const position = (f: string) => /row (\d+) of (\d+)/.exec(plain(f))?.[0] ?? null;

/** The dialog drawn whole: its top and bottom border, and the title between. */
function expectWholeDialog(f: string, title: string, rows: number) {
  const lines = plain(f).split('\n');
  const top = lines.findIndex((l) => l.includes('╭'));
  const bottom = lines.findIndex((l) => l.includes('╰'));
  expect(top).toBeGreaterThan(0);
  expect(bottom).toBeGreaterThan(top);
  expect(lines.slice(top, bottom).join('\n')).toContain(title);
  expect(lines.length).toBeLessThan(rows);
}

describe('a dialog keeps the list it acts on in sight', () => {
  for (const [columns, rows] of [
    [80, 24],
    [120, 40],
  ])
    it(`revoke at ${columns}x${rows}: the cursor's row stays above the dialog, which alone takes keys`, async () => {
      const d = suite.render({ screen: 'keys', columns, rows });
      await d.waitForText(`row 1 of ${KEYS}`);
      // the last row: the list is scrolled, so the row can only be seen if the table keeps it in its room
      await d.press('end');
      const before = await d.waitForText(`row ${KEYS} of ${KEYS}`);
      const selected = cursorLine(before)!;
      const name = /dlg-key-\d\d/.exec(selected)![0];
      await d.press('x');
      const open = await d.waitFor(
        (f) => plain(f).includes(`Type ${name} to confirm`) && cursorLine(f) !== null && f.includes('╰'),
        'the revoke dialog under the list',
      );
      expect(cursorLine(open)).toContain(name);
      expect(position(open)).toBe(`row ${KEYS} of ${KEYS}`);
      expect(plain(open)).toMatch(/Name +Status/);
      expectWholeDialog(open, `Revoke ${name}?`, rows);
      // the list sits above the dialog
      const lines = plain(open).split('\n');
      expect(lines.indexOf(cursorLine(open)!)).toBeLessThan(lines.findIndex((l) => l.includes('╭')));
      // keys are the dialog's: k and g are typed, the cursor stays
      await d.press('k', 'g');
      const typed = await d.waitFor((f) => /> kg/.test(plain(f)), 'k and g typed into the field');
      expect(cursorLine(typed)).toContain(name);
      expect(position(typed)).toBe(`row ${KEYS} of ${KEYS}`);
      await d.press('esc');
      await d.waitFor((f) => !f.includes('╭'), 'the dialog closed');
      expect(cursorLine(d.frame())).toContain(name);
    });

  it('the new key secret at 80x24: shown whole under the list', async () => {
    const d = suite.render({ screen: 'keys', columns: 80, rows: 24 });
    await d.waitForText(`row 1 of`);
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await d.type('dlg-key-secret');
    await d.press('enter');
    const f = await d.waitFor(
      (x) => plain(x).includes('Secret for dlg-key-secret') && cursorLine(x) !== null,
      'the secret under the list',
    );
    expectWholeDialog(f, 'Secret for dlg-key-secret', 24);
    expect(plain(f)).toContain('This secret will not be shown again');
    expect(position(f)).toMatch(/row \d+ of \d+/);
    await d.press('esc');
    await d.waitFor((x) => !x.includes('Secret for'), 'the secret dialog closed');
  });

  it("V on the audit screen at 120x40: the trail's rows stay, the cursor's included", async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit', columns: 120, rows: 40 });
    await d.waitForText('gateway.key.create');
    await d.press('j', 'j');
    const before = await d.waitForText('row 3 of');
    const selected = cursorLine(before)!;
    await d.press('V');
    const f = await d.waitFor((x) => plain(x).includes('Audit trail verified'), 'the verification result', 20_000);
    expectWholeDialog(f, 'Audit trail verified', 40);
    // the same record (V's own export may have added an entry above it since)
    expect(cursorLine(f)).toBe(selected);
    expect(position(f)).toMatch(/^row [34] of/);
    await d.press('enter');
    await d.waitFor((x) => !x.includes('Audit trail verified'), 'the result closed');
  });

  it('a dialog taller than the room left: the list gives way, never the dialog', async () => {
    const d = suite.render({ screen: 'keys', columns: 80, rows: 24 });
    await d.waitForText('row 1 of');
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1} of a long result`);
    void openDialog(d.deps.dialogs, { kind: 'message', title: 'A long result', lines }).done;
    const f = await d.waitFor((x) => plain(x).includes('A long result') && x.includes('╰'), 'the tall dialog');
    expectWholeDialog(f, 'A long result', 24);
    expect(plain(f)).toMatch(/more below/);
    expect(cursorLine(f)).toBeNull();
    expect(plain(f)).not.toMatch(/Name +Status/);
    await d.press('esc');
    await d.waitFor((x) => !x.includes('A long result') && cursorLine(x) !== null, 'the list back');
  });

  it("the key hints offer only what works: none of the list's keys under a dialog, only ? and q in help", async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    const hints = (f: string) =>
      plain(f)
        .split('\n')
        .findLast((l) => l.includes('│') || l.includes('q quit')) ?? '';
    const list = await d.waitForText('row 1 of');
    expect(hints(list)).toMatch(/n new key.*x revoke.*q quit/);
    await d.press('n');
    const form = await d.waitFor((f) => plain(f).includes('Create a gateway key') && f.includes('╰'), 'the form');
    const under = plain(form).split('\n');
    const below = under.slice(under.findLastIndex((l) => l.includes('╰')) + 1).join('\n');
    // q, n and x would go to the form's field, not quit, create or revoke
    expect(below).not.toMatch(/q quit|n new key|x revoke|s sort/);
    // the hint line stays, blank: the status line under it does not move up
    expect(under[under.findLastIndex((l) => l.includes('╰')) + 1].trim()).toBe('');
    await d.press('esc');
    await d.waitFor((f) => !f.includes('Create a gateway key'), 'the form closed');
    await d.press('?');
    const help = await d.waitForText('Keys everywhere');
    const line = plain(help).split('\n').at(-2) ?? '';
    expect(line).toContain('q quit');
    expect(line).not.toMatch(/new key|revoke|detail|sort|filter|next/);
    await d.press('?');
    await d.waitFor((f) => hints(f).includes('n new key'), 'the hints back with the list');
  });
});
