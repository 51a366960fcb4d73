import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { insertJournalBatch } from '../../src/server/governance/bulk.js';
import type { JournalRecord } from '../../src/server/governance/journal-writer.js';
import { widthOf } from '../../src/dashboard/kit/text.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';

const NOW = Date.now();
const RUNS = 30;
const CODES = ['budget_exceeded', 'model_unavailable', 'tool_timeout'];
/** Run ids as the appliance makes them: run_ and 16 random characters (here from a hash, to repeat). */
const runId = (k: number) =>
  `run_${BigInt(`0x${createHash('sha256').update(`run ${k}`).digest('hex').slice(0, 24)}`)
    .toString(36)
    .slice(0, 16)}`;

/** Runs of two steps by agents with long names and tools; every run's last step fails. */
function seedRows(): JournalRecord[] {
  return Array.from({ length: RUNS }, (_, k) => {
    const start = NOW - 60_000 - k * 60_000;
    return [0, 1].map((step): JournalRecord => ({
      run_id: runId(k),
      agent: 'contract-reviewer',
      channel: 'chan_teams',
      step,
      tool: step ? 'extract_clauses' : null,
      status: step ? 'failed' : 'succeeded',
      started_ms: start + step * 1000,
      ended_ms: start + step * 1000 + 800,
      input_tokens: 13_100,
      output_tokens: 677,
      error: step ? { code: CODES[k % CODES.length], message: 'the step failed' } : null,
    }));
  }).flat();
}

const suite = setupScreenSuite({
  setup: (s) => {
    insertJournalBatch(s.server.db, seedRows());
  },
});

const tableRows = (f: string) => f.split('\n').filter((l) => /^[› ] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /.test(l));
/** The run a table row shows: its last cell. */
const shownRun = (row: string) => row.trimEnd().split(/\s+/).at(-1)!;

describe('journal columns at 120', () => {
  it('the error code whole; the run id a prefix that tells the runs apart, whole in Enter and u', async () => {
    const d = suite.render({ screen: 'journal', columns: 120, rows: 40 });
    const f = await d.waitForText(`${RUNS * 2} journal entries`);
    const rows = tableRows(f);
    expect(rows.length).toBeGreaterThan(10);
    for (const r of rows) expect(widthOf(r)).toBeLessThanOrEqual(120);
    const failed = rows.filter((r) => r.includes('✕ failed'));
    expect(failed.length).toBeGreaterThan(5);
    // k % 3 picks the code: the newest failed steps are runs 0, 1, 2, …
    failed.forEach((r, k) => expect(r).toMatch(new RegExp(`✕ failed\\s+${CODES[k % CODES.length]}\\s+800 ms`)));
    // each run's prefix, as git shortens a hash: 8 characters or more, not cut with …, unique per run
    const byRun = new Map<string, string>();
    for (const r of rows) {
      const shown = shownRun(r);
      expect(shown.length).toBeGreaterThanOrEqual(8);
      expect(shown).not.toContain('…');
      const run = Array.from({ length: RUNS }, (_, k) => runId(k)).filter((id) => id.startsWith(shown));
      expect(run).toHaveLength(1);
      expect(shown.length).toBeLessThan(run[0].length);
      expect(byRun.get(run[0]) ?? shown).toBe(shown);
      byRun.set(run[0], shown);
    }
    expect(new Set(byRun.values()).size).toBe(byRun.size);
    // Enter shows the whole id; u filters on it
    await d.press('j', 'j');
    const second = tableRows(await d.waitForText(/row 3 of/)).find((r) => r.startsWith('›'))!;
    const whole = runId(1);
    expect(shownRun(second)).toBe(byRun.get(whole));
    await d.press('enter');
    await d.waitForText(new RegExp(`run_id\\s+${whole}`));
    await d.press('esc', 'o');
    await d.waitForText(`run ${whole}`);
  });

  it('at 60 columns the status stays, which step failed is told without the cursor on it', async () => {
    const d = suite.render({ screen: 'journal', columns: 60, rows: 20 });
    const f = await d.waitForText(`${RUNS * 2} journal entries`);
    expect(f).toMatch(/Time \(UTC\) ▼\s+Agent\s+.*Status/);
    const rows = tableRows(f);
    expect(rows.filter((r) => r.includes('✕ failed')).length).toBeGreaterThan(3);
    expect(rows.filter((r) => r.includes('● succeeded')).length).toBeGreaterThan(3);
    for (const r of rows) expect(widthOf(r)).toBeLessThanOrEqual(60);
  });

  it('at 160 columns the run id is whole', async () => {
    const d = suite.render({ screen: 'journal', columns: 160, rows: 40 });
    const f = await d.waitForText(`${RUNS * 2} journal entries`);
    expect(tableRows(f)[0]).toMatch(new RegExp(`✕ failed\\s+${CODES[0]}\\s+.*${runId(0)}$`));
  });
});
