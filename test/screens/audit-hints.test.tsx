import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';

const suite = setupScreenSuite();

/** An auditor opens the audit screen to prove the trail: its hint line keeps V and E at 80 columns. */
describe("the audit screen's hint line on a short terminal", () => {
  it('at 80x24 an auditor sees V verify chain and E evidence pack before the paging keys', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit', columns: 80, rows: 24 });
    const frame = await d.waitForText('q quit');
    const hints = frame.split('\n').find((l) => l.includes('? help'))!;
    expect(hints).toContain('V verify chain');
    expect(hints).toContain('E evidence pack');
    expect(hints).toContain('f filter');
  });
});
