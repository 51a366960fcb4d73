import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';

const suite = setupScreenSuite();

/**
 * An auditor opens the audit screen to prove the trail and hand it on: its hint line keeps the
 * screen's own keys (V, E, export, the action pick list, groups) and lets the paging keys go first.
 */
describe("the audit screen's hint line on a short terminal", () => {
  it('at 80x24 an auditor sees verify, evidence, export, pick action and groups before the paging keys', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit', columns: 80, rows: 24 });
    const frame = await d.waitForText('q quit');
    const hints = frame.split('\n').find((l) => l.includes('? help'))!;
    for (const hint of ['V verify', 'E evidence', 'w export', 'A ', 'v groups']) expect(hints).toContain(hint);
    // the keys every history has give way to them: ? lists those
    for (const lesser of ['] older', 'c clear', '[ newer', 'f filter']) expect(hints).not.toContain(lesser);
  });

  it('at 200 columns every key says its whole word', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit', columns: 200, rows: 40 });
    const frame = await d.waitForText('q quit');
    const hints = frame.split('\n').find((l) => l.includes('? help'))!;
    for (const hint of ['V verify chain', 'E evidence pack', 'w export', 'A pick action', 'v groups', '] older'])
      expect(hints).toContain(hint);
  });
});
