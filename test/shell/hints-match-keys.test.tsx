import { describe, expect, it } from 'vitest';
import { openLink } from '../../src/dashboard/shell/navigate.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';

/**
 * The hint line promises only what the keys do where they are now: in a detail view Enter closes
 * it (it opens nothing more), / and s do nothing, and Esc closes the detail rather than going back.
 */
const suite = setupScreenSuite();

const header = (f: string) => f.split('\n')[1] ?? '';
/** the key hints: the last line offering ? help */
const hints = (f: string) =>
  f
    .split('\n')
    .filter((l) => l.includes('? help'))
    .at(-1) ?? '';

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
