import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { insertJournalBatch } from '../../src/server/governance/bulk.js';
import type { JournalRecord } from '../../src/server/governance/journal-writer.js';
import { snapshot } from '../helpers/server.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { tempDir } from '../helpers/fixtures.js';
import { patchScreen } from '../../src/dashboard/state/ui.js';

const NOW = Date.now();
const AGENTS = ['hr-assistant', 'it-helpdesk', 'finance-analyst'];
const TOOLS = [null, 'search_docs', null, 'create_ticket'];
const RUNS = 40;
const runId = (k: number) => `run_seed${String(k).padStart(3, '0')}`;

/** 40 runs of 4 steps, one run every 5 minutes (run 0 newest); some fail, some are cancelled. */
function seedRows(): JournalRecord[] {
  const rows: JournalRecord[] = [];
  for (let k = 0; k < RUNS; k++) {
    const start = NOW - 5 * 60_000 - k * 5 * 60_000;
    for (let step = 0; step < 4; step++) {
      const last = step === 3;
      const status = last && k % 5 === 0 ? 'failed' : last && k % 7 === 0 ? 'cancelled' : 'succeeded';
      rows.push({
        run_id: runId(k),
        agent: AGENTS[k % 3],
        channel: k % 2 ? 'chan_mail' : 'chan_web',
        step,
        tool: TOOLS[step],
        status,
        started_ms: start + step * 2000,
        ended_ms: start + step * 2000 + 1500 + step,
        input_tokens: 1000 * step + k,
        output_tokens: 10 * step,
        error: status === 'failed' ? { code: 'tool_timeout', message: 'create_ticket did not answer in 30 s' } : null,
      });
    }
  }
  return rows;
}

const suite = setupScreenSuite({
  setup: (s) => {
    insertJournalBatch(s.server.db, seedRows());
  },
});

interface Row {
  id: string;
  run_id: string;
  agent: string;
  status: string;
  step: number;
}
const journal = (where = '1 = 1') =>
  suite.db
    .prepare(`SELECT id, run_id, agent, status, step FROM journal WHERE ${where} ORDER BY started_ms DESC, seq DESC`)
    .all() as Row[];
const tableRows = (f: string) => f.split('\n').filter((l) => /^[› ] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /.test(l));
const firstRow = (f: string) => tableRows(f)[0] ?? '';

describe('journal screen', () => {
  it('lists steps newest first: time, agent, step, tool, status, error, elapsed, tokens, channel, run', async () => {
    const d = suite.render({ screen: 'journal', columns: 150 });
    const f = await d.waitForText(runId(0));
    const time = new Date(NOW - 5 * 60_000 + 3 * 2000).toISOString().slice(0, 19).replace('T', ' ');
    // run 0, step 3: failed (0 % 5 === 0) on a timeout, 1503 ms, 3000 in / 30 out
    expect(firstRow(f)).toMatch(
      new RegExp(
        `${time}\\s+hr-assistant\\s+3\\s+create_ticket\\s+✕ failed\\s+tool_timeout\\s+` +
          `1\\.5 s\\s+3000/30\\s+chan_web\\s+${runId(0)}`,
      ),
    );
    expect(f).toMatch(/hr-assistant\s+1\s+search_docs\s+● succeeded\s+–\s+1\.5 s\s+1000\/10\s+chan_web/);
    expect(f).toMatch(/hr-assistant\s+0\s+–\s+● succeeded/); // a step without a tool
    expect(f).toContain('all time, no other filters · page 1 · 50 per page · more (] older)');
    // the message is in the step's detail
    await d.press('enter');
    await d.waitForText('create_ticket did not answer in 30 s');
  });

  it('the error column is narrowed last: whole at 120 columns, with these run ids whole; at 80 Elapsed gives way to it', async () => {
    const wide = suite.render({ screen: 'journal', columns: 120 });
    await wide.waitForText(new RegExp(`✕ failed\\s+tool_timeout\\s+1\\.5 s\\s+3000/30\\s+chan_\\S*\\s+${runId(0)}`));
    await suite.unmount();
    const d = suite.render({ screen: 'journal', columns: 80, rows: 24 });
    const f = await d.waitForText(/hr-assistant\s+3\s+\S+\s+✕ failed\s+tool_timeout\s*$/m);
    expect(f.split('\n').every((l) => l.length <= 80)).toBe(true);
    // left out of the table (the line under it says the cursor row's elapsed time)
    expect(f.split('\n').find((l) => l.startsWith('  Time (UTC)'))).not.toContain('Elapsed');
    expect(f).toMatch(/Elapsed 1\.5 s/);
  });

  it('filters by agent and status on the server', async () => {
    const d = suite.render({ screen: 'journal', columns: 130 });
    await d.waitForText(runId(0));
    await d.press('f');
    await d.waitForText('Filter the agent journal');
    await d.press('tab', 'tab', 'tab');
    await d.type('it-helpdesk');
    await d.press('tab', 'right', 'right', 'right'); // any → running → succeeded → failed
    await d.press('enter');
    const expected = journal("agent = 'it-helpdesk' AND status = 'failed'");
    expect(expected.length).toBeGreaterThan(0);
    const f = await d.waitForText(`row 1 of ${expected.length}`);
    expect(f).toContain('agent it-helpdesk · status failed');
    const rows = tableRows(f);
    expect(rows).toHaveLength(expected.length);
    rows.forEach((r, i) => {
      expect(r).toMatch(/it-helpdesk\s+3\s+create_ticket\s+✕ failed/);
      expect(r).toContain(expected[i].run_id);
    });
  });

  it('pages to older steps and back', async () => {
    const d = suite.render({ screen: 'journal' });
    await d.waitForText(runId(0));
    const all = journal();
    await d.press(']');
    await d.waitFor((f) => f.includes('page 2 · 50 per page · more') && firstRow(f).includes(all[50].run_id), 'page 2');
    await d.press(']');
    await d.waitForText('page 3 ·');
    await d.press(']');
    await d.waitFor(
      (f) => f.includes('page 4 · 50 per page · oldest page') && f.includes(`row 1 of ${all.length - 150}`),
      'the last page',
    );
    await d.press('end');
    await d.waitForText(new RegExp(`^› .*${runId(RUNS - 1)}`, 'm'));
    await d.press('{');
    await d.waitFor((f) => f.includes('page 1 ·') && firstRow(f).includes(runId(0)), 'page 1 again');
  });

  it("u shows only the selected step's run", async () => {
    const d = suite.render({ screen: 'journal' });
    await d.waitForText(runId(0));
    await d.press('/');
    await d.type(runId(7));
    await d.press('enter');
    await d.waitFor(
      (f) => tableRows(f).some((l) => l.startsWith('›') && l.includes(runId(7))),
      'a row of run 7 selected',
    );
    await d.press('o');
    const f = await d.waitForText(`run ${runId(7)}`);
    await d.waitFor((x) => tableRows(x).length === 4, 'the four steps of run 7');
    const rows = tableRows(d.frame());
    expect(rows.every((r) => r.includes(runId(7)))).toBe(true);
    expect(rows[0]).toMatch(/3\s+create_ticket\s+○ cancelled/); // 7 % 7 === 0
    expect(f).toContain('page 1 · 50 per page · all shown');
  });

  it('u on a filtered list shows the whole run: the status and time filters go, only the run stays', async () => {
    const d = suite.render({ screen: 'journal' });
    await d.waitForText(runId(0));
    patchScreen(d.deps.ui, 'journal', { extra: { range: '1h', filters: { status: 'cancelled' } } });
    await d.waitFor(
      (f) => tableRows(f).length > 0 && tableRows(f).every((r) => r.includes('cancelled')),
      'only cancelled steps',
    );
    await d.press('/');
    await d.type(runId(7));
    await d.press('enter');
    await d.waitFor((f) => tableRows(f).some((l) => l.startsWith('›') && l.includes(runId(7))), 'run 7 selected');
    await d.press('o');
    const f = await d.waitFor((x) => tableRows(x).length === 4, 'all four steps of run 7');
    expect(tableRows(f).every((r) => r.includes(runId(7)))).toBe(true);
    expect(tableRows(f).filter((r) => r.includes('succeeded')).length).toBe(3);
    expect(f).not.toContain('status cancelled');
    expect(f).not.toContain('last hour');
  });

  it('u after a search shows the whole run, not only the steps the search matched, and from the detail too', async () => {
    const d = suite.render({ screen: 'journal' });
    await d.waitForText(runId(0));
    await d.press('/');
    await d.type('tool_timeout'); // only the failed last step of every fifth run
    await d.press('enter');
    await d.waitFor((f) => /match(es)? "tool_timeout"/.test(f) && firstRow(f).includes(runId(0)), 'the failed steps');
    await d.press('enter');
    await d.waitForText(new RegExp(`run_id\\s+${runId(0)}`));
    await d.press('o');
    const f = await d.waitFor((x) => tableRows(x).length === 4, 'all four steps of run 0, the detail closed');
    expect(f).toContain(`run ${runId(0)}`);
    expect(tableRows(f).filter((r) => r.includes('succeeded'))).toHaveLength(3);
    expect(f).not.toContain('"tool_timeout"');
  });

  it('exports csv for an auditor; rows match the server and nothing is disabled', async () => {
    const dest = join(tempDir('aa-journal-export'), 'journal.csv');
    const d = suite.render({ role: 'auditor', screen: 'journal' });
    await d.waitForText('READ-ONLY');
    await d.waitForText(runId(0));
    const hints = d
      .frame()
      .split('\n')
      .find((l) => l.includes('w export'))!;
    expect(hints).not.toContain('✕');
    const journalBefore = snapshot(suite.server, 'journal');
    await d.press('f');
    await d.waitForText('Filter the agent journal');
    await d.press('tab', 'tab', 'tab');
    await d.type('finance-analyst');
    await d.press('enter');
    await d.waitForText('agent finance-analyst');
    await d.press('w');
    const form = await d.waitForText('Export the agent journal');
    expect(form).toMatch(/File\s+\.\/journal-\d{8}T\d{6}Z\.csv/);
    await d.press('tab', ...Array<string>(40).fill('backspace'));
    await d.type(dest);
    await d.press('enter');
    const done = await d.waitForText('Export written', 10_000);
    const text = readFileSync(dest);
    const records = parse(text, { columns: true }) as Record<string, string>[];
    const expected = journal("agent = 'finance-analyst'").reverse();
    expect(records.map((r) => r.id)).toEqual(expected.map((e) => e.id));
    expect(records[0]).toMatchObject({
      agent: 'finance-analyst',
      run_id: expected[0].run_id,
      step: String(expected[0].step),
    });
    expect(done).toContain(`rows    ${expected.length}`);
    expect(done).toContain(`sha256  ${createHash('sha256').update(text).digest('hex')}`);
    expect(done).toContain(`path    ${dest}`);
    expect(snapshot(suite.server, 'journal')).toEqual(journalBefore);
    const entry = suite.db
      .prepare("SELECT actor_subject, outcome, details FROM audit WHERE action = 'journal.export' ORDER BY seq DESC")
      .get() as { actor_subject: string; outcome: string; details: string };
    expect(entry).toMatchObject({ actor_subject: 'aude-auditor', outcome: 'success' });
    expect(JSON.parse(entry.details)).toMatchObject({ format: 'csv', filters: { agent: 'finance-analyst' } });
  });

  it('a custom range that ends before it starts is refused in the form and nothing is sent', async () => {
    const d = suite.render({ screen: 'journal' });
    await d.waitForText(runId(0));
    await d.press('f');
    await d.waitForText('Filter the agent journal');
    await d.press('right', 'right', 'right', 'right', 'right'); // custom
    await d.press('tab');
    await d.type('2026-11-21');
    await d.press('tab');
    await d.type('2026-11-20');
    await d.press('enter');
    const f = await d.waitForText('✕ Until (custom): must be after From (2026-11-21 00:00:00)');
    expect(f).toContain('Filter the agent journal');
    expect(Object.keys(d.deps.resources.getState().entries).join('\n')).not.toContain('2026-11-20');
    await d.press('esc');
    await d.waitFor((x) => !x.includes('Filter the agent journal'), 'the form to close');
    expect(d.frame()).toContain('all time, no other filters');
  });

  it('a range the appliance refuses shows in plain words with code and request id', async () => {
    const d = suite.render({ screen: 'journal' });
    await d.waitForText(runId(0));
    // a state the form no longer produces (e.g. kept from an older dashboard): the appliance refuses it
    patchScreen(d.deps.ui, 'journal', {
      extra: { range: 'custom', from: '2026-11-21T00:00:00Z', until: '2026-11-20T00:00:00Z' },
    });
    const f = await d.waitForText('SVC-ADMIN-400');
    expect(f).toContain('✕ ERROR loading journal: The appliance rejected the request as invalid');
    expect(f).toMatch(/code SVC-ADMIN-400 · request req_\w+/);
    await d.press('c');
    await d.waitForText(runId(0));
  });
});
