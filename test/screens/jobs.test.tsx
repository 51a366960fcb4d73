import { describe, expect, it } from 'vitest';
import { selectRow, setupScreenSuite } from '../helpers/screen-suite.js';

/**
 * c (all connectors) on the jobs screen: it clears the connector J chose, and while no connector is
 * chosen the list already has every connector's jobs, so its key is shown disabled with why, and
 * pressing it says so instead of doing nothing.
 */
const suite = setupScreenSuite();

/** The key hint line: it starts with the screen's first action. */
const hintsOf = (f: string) => f.split('\n').find((l) => l.startsWith('c all connectors')) ?? '';

describe('c all connectors on the jobs screen', () => {
  it('is disabled while every connector is shown, and pressing it says why', async () => {
    const d = suite.render({ screen: 'jobs', columns: 120, rows: 40 });
    await d.waitForText('Jobs of every connector');
    const hints = hintsOf(await d.waitFor((f) => hintsOf(f).includes('(✕'), 'the disabled hint'));
    expect(hints).toMatch(/^c all connectors ✕ .*\(✕ already showing every connector\)/);
    await d.press('c');
    await d.waitForText('all connectors: already showing every connector.');
    expect(d.frame()).toContain('Jobs of every connector');
  });

  it('after J on a connector it is offered, and shows every connector again', async () => {
    const d = suite.render({ screen: 'connectors', columns: 120, rows: 40 });
    await d.waitForText('Cloud CRM');
    await selectRow(d, 'Cloud CRM');
    await d.press('J');
    const f = await d.waitForText('Jobs of Cloud CRM');
    expect(hintsOf(f)).toMatch(/^c all connectors /);
    expect(hintsOf(f)).not.toContain('✕');
    await d.press('c');
    await d.waitForText('Jobs of every connector');
    await d.waitFor((x) => hintsOf(x).includes('(✕ already showing every connector)'), 'disabled again');
  });
});
