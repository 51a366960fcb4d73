import { describe, expect, it } from 'vitest';
import { insertJournalBatch } from '../../src/server/governance/bulk.js';
import type { JournalRecord } from '../../src/server/governance/journal-writer.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import type { DashboardHarness } from '../helpers/dashboard.js';

const NOW = Date.now();
const entry = (id: string, run: string, minutesAgo: number): JournalRecord => ({
  id,
  run_id: run,
  agent: 'hr-assistant',
  channel: 'chan_web',
  step: 0,
  tool: null,
  status: 'succeeded',
  started_ms: NOW - minutesAgo * 60_000,
  ended_ms: NOW - minutesAgo * 60_000 + 900,
  input_tokens: 10,
  output_tokens: 1,
});

const suite = setupScreenSuite({
  setup: (s) => {
    insertJournalBatch(s.server.db, [entry('jrn_first', 'run_first', 10), entry('jrn_second', 'run_second', 20)]);
  },
});

/** The journal entry the poller got (the list's answer), not the frame: the detail hides the list. */
async function polled(d: DashboardHarness, id: string, present: boolean) {
  await d.waitFor(
    () =>
      Object.values(d.deps.resources.getState().entries).some(
        (e) => JSON.stringify(e.data ?? null).includes(`"${id}"`) === present,
      ),
    `${id} ${present ? 'in' : 'gone from'} the polled list`,
  );
  // the screen has rendered the answer: React's scheduler runs it on a later turn of the event loop (no frame
  // need follow: a detail that does not change draws none)
  for (let turn = 0; turn < 3; turn++) await new Promise<void>((r) => setImmediate(r));
}

const selected = (f: string) => f.split('\n').find((l) => l.startsWith('›')) ?? '';

describe('the cursor holds a record, not a position', () => {
  it('an open detail stays on its record when newer rows arrive above it', async () => {
    const d = suite.render({ screen: 'journal', refreshMs: 100 });
    await d.waitForText('run_first');
    await d.press('enter'); // the cursor never moved: the first row, which the detail now holds
    await d.waitForText('Detail: jrn_first');
    insertJournalBatch(suite.db, [entry('jrn_newer', 'run_newer', 1)]);
    await polled(d, 'jrn_newer', true);
    expect(d.frame()).toContain('Detail: jrn_first');
    expect(d.frame()).not.toContain('jrn_newer');
    await d.press('esc');
    const list = await d.waitForText('run_newer');
    expect(selected(list)).toContain('run_first');
  });

  it('an untouched cursor stays on the newest row; once moved, it and its actions follow the record', async () => {
    const d = suite.render({ screen: 'journal', refreshMs: 100 });
    await d.waitForText('run_first');
    insertJournalBatch(suite.db, [entry('jrn_newest', 'run_newest', 0.5)]);
    await d.waitFor((x) => selected(x).includes('run_newest'), 'the untouched cursor on the newest row');
    await d.press('j', 'k'); // the operator picks that row
    await d.waitFor((x) => selected(x).includes('run_newest'), 'the cursor back on run_newest');
    insertJournalBatch(suite.db, [entry('jrn_latest', 'run_latest', 0.2)]);
    await d.waitForText('run_latest');
    expect(selected(d.frame())).toContain('run_newest');
    await d.press('o'); // only this row's run
    await d.waitForText('run run_newest');
    await d.waitFor((x) => !x.includes('run_latest'), 'the list narrowed to run_newest');
  });

  it('says so when the open record leaves the list, instead of showing another one', async () => {
    const d = suite.render({ screen: 'journal', refreshMs: 100 });
    await d.waitForText('run_second');
    await d.press('end'); // the oldest row
    await d.waitFor((x) => selected(x).includes('run_second'), 'the cursor on run_second');
    await d.press('enter');
    await d.waitForText('Detail: jrn_second');
    suite.db.prepare('DELETE FROM journal WHERE id = ?').run('jrn_second');
    await polled(d, 'jrn_second', false);
    const f = await d.waitForText('no longer in the list');
    expect(f).toContain('Detail: jrn_second');
    expect(f).toMatch(/run_id\s+run_second/); // as last seen
    for (const other of ['jrn_first', 'jrn_newer', 'jrn_newest']) expect(f).not.toContain(other);
    await d.press('esc');
    const list = await d.waitForText('jrn_second is no longer in the list');
    expect(selected(list)).not.toBe('');
  });
});
