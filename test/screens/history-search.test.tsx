import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { insertAuditBatch, insertJournalBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import type { JournalRecord } from '../../src/server/governance/journal-writer.js';
import { patchScreen, screenState } from '../../src/dashboard/state/ui.js';
import { auditScreen } from '../../screens/audit.js';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { snapshot } from '../helpers/server.js';
import { tempDir } from '../helpers/fixtures.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';

const NOW = Date.now();
const AUDITED = 300;
/** Entry i is denied when i % 5 === 0: 60 of 300, most of them beyond the first page of 50. */
const denied = (i: number) => i % 5 === 0;
const DENIED = Array.from({ length: AUDITED }, (_, i) => i).filter(denied).length;

/** "denied" is only in the details of denied entries, so a search for it finds exactly those. */
function auditSeed(i: number): AuditSeed {
  return {
    at_ms: NOW - 60_000 - i * 60_000,
    actor: { subject: i % 2 ? 'bob@corp.example' : 'alice@corp.example', role: 'it_admin' },
    action: i % 3 ? 'gateway.key.revoke' : 'model.activate',
    target: { type: i % 3 ? 'gateway_key' : 'model', id: `tgt_${i}` },
    outcome: denied(i) ? 'denied' : 'success',
    status: denied(i) ? 403 : 200,
    request_id: `req_s${i}`,
    source_ip: '10.0.0.1',
    details: denied(i) ? { reason: 'denied by role policy' } : { n: i },
  };
}

const AGENTS = ['hr-assistant', 'it-helpdesk', 'finance-analyst'];
/** 40 runs of 2 steps; the last step of every 5th run fails. */
function journalSeed(): JournalRecord[] {
  const rows: JournalRecord[] = [];
  for (let k = 0; k < 40; k++) {
    const start = NOW - 60_000 - k * 60_000;
    for (let step = 0; step < 2; step++) {
      rows.push({
        run_id: `run_${k}`,
        agent: AGENTS[k % 3],
        channel: 'chan_web',
        step,
        tool: step ? 'search_docs' : null,
        status: step === 1 && k % 5 === 0 ? 'failed' : 'succeeded',
        started_ms: start + step * 1000,
        ended_ms: start + step * 1000 + 500,
        input_tokens: 10,
        output_tokens: 1,
      });
    }
  }
  return rows;
}
const failedBy = (agent: string) => journalSeed().filter((r) => r.agent === agent && r.status === 'failed').length;

const suite = setupScreenSuite({
  setup: (s) => {
    insertAuditBatch(
      s.server.db,
      Array.from({ length: AUDITED }, (_, i) => auditSeed(i)),
    );
    insertJournalBatch(s.server.db, journalSeed());
  },
});

const tableRows = (f: string) => f.split('\n').filter((l) => /^[› ] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /.test(l));
const unchanged = () => ({ audit: snapshot(suite.server, 'audit'), journal: snapshot(suite.server, 'journal') });

/** Moves the picker's cursor to the line holding `text` (in the dialog: the list's own › row is above it). */
async function pickLine(d: DashboardHarness, text: string) {
  const cursorLine = (f: string) => f.split('\n').find((l) => l.includes('│ ›')) ?? '';
  const picked = (f: string) => cursorLine(f).includes(text);
  for (let i = 0; i < 12 && !picked(d.frame()); i++) {
    const from = cursorLine(d.frame());
    await d.press('down');
    await d.waitFor((f) => cursorLine(f) !== from, 'the cursor moved');
  }
  await d.waitFor(picked, `${text} under the cursor`);
}

describe('/ on the audit screen searches the whole trail', () => {
  it("/denied shows the server's count of every match, not the loaded page's, and lists the server's matches", async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit' });
    await d.waitForText('tgt_0');
    const before = unchanged();
    await d.press('/');
    await d.type('denied');
    await d.press('enter');
    const server = await suite.server.call('GET', '/audit/summary?q=denied', { role: 'auditor' });
    expect(server.status).toBe(200);
    expect((server.json as { total: number }).total).toBe(DENIED);
    const f = await d.waitForText(`${DENIED} match "denied"`);
    // while the count was on its way the screen said so
    expect(d.allFrames()).toMatch(/counting matches of "denied"…/);
    // one search, on Enter: never one for a part of the text
    expect(d.allFrames()).not.toMatch(/match(es of)? "(de|den|deni|denie)"/);
    // the rows are the appliance's matches (all denied), not the first page filtered here
    await d.waitFor(
      (x) => tableRows(x).length > 10 && tableRows(x).every((l) => l.includes('▲ denied')),
      'denied rows only',
    );
    // the count names the search: the filters after it do not say it again (it pushed the paging words off)
    expect(f).toMatch(
      new RegExp(`${DENIED} match "denied" · all time, no other filters · page 1 · 50 per page · more`),
    );
    expect(f).not.toContain('search "denied"');
    expect(screenState(d.deps.ui.getState(), 'audit').filter).toBe('denied');
    expect(auditScreen.resources(screenState(d.deps.ui.getState(), 'audit'))[0].query).toMatchObject({ q: 'denied' });
    expect(unchanged()).toEqual(before);
  });

  it('a 1-character search says it needs 2 and sends no q', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit' });
    await d.waitForText('tgt_0');
    await d.press('/');
    await d.type('d');
    // nothing is searched while typing: the text goes to the appliance on Enter
    expect(screenState(d.deps.ui.getState(), 'audit').filter).toBe('');
    await d.press('enter');
    await d.waitForText('type 2 or more characters to search the whole audit trail');
    const sent = auditScreen.resources(screenState(d.deps.ui.getState(), 'audit'));
    expect(sent[0].query).not.toHaveProperty('q');
    expect(sent[1].query).not.toHaveProperty('q');
    // the page stays as it was: the shell does not filter the rows itself
    await d.waitFor((f) => tableRows(f).some((l) => l.includes('tgt_1 ')), 'the unfiltered page');
  });
});

describe('the grouped view', () => {
  it('counts the audit trail by outcome; Enter on a group lists its entries', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit' });
    await d.waitForText('tgt_0');
    const before = unchanged();
    await d.press('v');
    await d.waitForText('Count the audit entries by');
    await d.press('enter'); // Outcome, the first field
    const groups = await d.waitForText(`Audit entries by outcome: ${AUDITED} in all`);
    expect(groups).toMatch(new RegExp(`success\\s+${AUDITED - DENIED}\\b`));
    expect(groups).toMatch(new RegExp(`denied\\s+${DENIED}\\b`));
    await pickLine(d, 'denied');
    await d.press('enter');
    await d.waitForText('outcome denied');
    await d.waitForText(`${DENIED} audit entries in all`);
    await d.waitFor(
      (x) => tableRows(x).length > 10 && tableRows(x).every((l) => l.includes('▲ denied')),
      'denied rows only',
    );
    expect(screenState(d.deps.ui.getState(), 'audit').extra).toMatchObject({ filters: { outcome: 'denied' } });
    expect(unchanged()).toEqual(before);
  });

  it("journal by agent keeps the list's filters: failures per agent, and Enter lists one agent's", async () => {
    const d = suite.render({ role: 'auditor', screen: 'journal' });
    patchScreen(d.deps.ui, 'journal', { extra: { filters: { status: 'failed' } } });
    await d.waitForText('status failed');
    const before = unchanged();
    await d.press('v');
    await d.waitForText('Count the journal entries by');
    await d.press('enter'); // Agent
    const total = AGENTS.reduce((n, a) => n + failedBy(a), 0);
    const groups = await d.waitForText(`Journal entries by agent: ${total} in all`);
    for (const a of AGENTS) expect(groups).toMatch(new RegExp(`${a}\\s+${failedBy(a)}\\b`));
    await pickLine(d, 'it-helpdesk');
    await d.press('enter');
    await d.waitForText('agent it-helpdesk · status failed');
    await d.waitFor(
      (x) =>
        tableRows(x).length === failedBy('it-helpdesk') && tableRows(x).every((l) => /it-helpdesk.*failed/.test(l)),
      'it-helpdesk failures',
    );
    expect(unchanged()).toEqual(before);
  });
});

// last: the export writes an audit entry of its own
describe('an export from a search', () => {
  it('writes what the search matched, and says so', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit' });
    await d.waitForText('tgt_0');
    await d.press('/');
    await d.type('denied');
    await d.press('enter');
    await d.waitForText(`${DENIED} match "denied"`);
    await d.press('w');
    const form = await d.waitForText('Export the audit trail');
    expect(form).toContain('search "denied"');
    await d.press('right', 'tab', ...Array<string>(48).fill('backspace'));
    const dest = join(tempDir('aa-search-export'), 'denied.jsonl');
    await d.type(dest);
    await d.press('enter');
    await d.waitForText('Export written', 10_000);
    const lines = readFileSync(dest, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { outcome: string; action: string });
    expect(lines.filter((l) => l.outcome === 'denied')).toHaveLength(DENIED);
    // besides them at most the export's own entry, whose details name the search
    const others = lines.filter((l) => l.outcome !== 'denied');
    expect(others.length).toBeLessThanOrEqual(1);
    expect(others.every((l) => l.action === 'audit.export')).toBe(true);
  });
});
