import { describe, expect, it } from 'vitest';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';

/**
 * At 80x24 a result with its audit entry is taller than the room: the dialog scrolls (↑↓ PgUp
 * PgDn Home End) and says what is hidden, instead of cutting the entry off.
 */
const suite = setupScreenSuite();

describe('a result taller than the window', () => {
  it('scrolls to show the whole audit entry', async () => {
    const d = suite.render({ screen: 'connectors', columns: 80, rows: 24 });
    await d.waitForText('Team share');
    await selectRow(d, 'Team share');
    await d.press('i');
    await d.waitForText('Ingest from Team share');
    await d.press('enter');
    const first = await d.waitForText('Ingestion finished', 10_000);
    const entry = suite
      .auditRows()
      .filter((r) => r.action === 'connector.ingest')
      .at(-1)!;
    const jobId = JSON.parse(entry.details).job_id as string;
    expect(first).toContain('↑↓ PgUp PgDn scroll · Enter or Esc to close');
    expect(first).toMatch(/… \d+ more below \(↓ PgDn\)/);
    expect(first).not.toContain(`job_id: ${jobId}`);
    expect(first).not.toContain('make the window taller');

    await d.press('pgdn');
    const end = await d.waitForText(`job_id: ${jobId}`);
    expect(end).toContain(`request  ${entry.request_id}`);
    expect(end).toMatch(/… \d+ above \(↑ PgUp\)/);
    expect(end).not.toContain('SUCCEEDED  Team share'); // scrolled off the top

    await d.press('home');
    await d.waitForText('SUCCEEDED  Team share');
    await d.press('down');
    await d.waitForText(/1 above/);
    await d.press('end');
    await d.waitForText(`job_id: ${jobId}`);
    // still closes with Enter, back to a working screen
    await d.press('enter');
    await d.waitFor((f) => !f.includes('Ingestion finished') && f.includes('Team share'), 'the dialog to close');
  });

  it('a message that fits does not scroll', async () => {
    const d = suite.render({ screen: 'budgets', columns: 80, rows: 24 });
    await d.waitForText('(defaults)');
    await d.press('d');
    await d.waitForText('Default agent budgets');
    await d.press('enter'); // unchanged: nothing to save
    const f = await d.waitForText('Nothing saved');
    expect(f).toContain('Enter or Esc to close');
    expect(f).not.toContain('PgUp PgDn scroll');
    expect(f).not.toMatch(/more below|above \(/);
  });
});
