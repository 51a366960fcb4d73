import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { tempDir } from '../helpers/fixtures.js';
import { patchScreen } from '../../src/dashboard/state/ui.js';
import { isoSeconds } from '../../src/text/time-input.js';

let outDir: string;
const NOW = Date.now();
const SUBJECTS = [
  ['alice@corp.example', 'it_admin'],
  ['bob@corp.example', 'app_owner'],
  ['carol@corp.example', 'auditor'],
] as const;
const ACTIONS = ['gateway.key.create', 'gateway.key.revoke', 'channel.update', 'model.activate'];
const SEEDED = 1200;
const DAY = 24 * 60 * 60_000;
const tid = (i: number) => `key_seed${String(i).padStart(4, '0')}`;

/** Entry i is i minutes older than the newest (10 minutes ago): 1,200 entries over 20 hours. */
function seed(i: number): AuditSeed {
  const [subject, role] = SUBJECTS[i % 3];
  const outcome = i % 10 === 0 ? 'denied' : i % 7 === 0 ? 'failed' : 'success';
  return {
    at_ms: NOW - 10 * 60_000 - i * 60_000,
    actor: { subject, role },
    action: ACTIONS[i % 4],
    target: { type: 'gateway_key', id: tid(i) },
    outcome,
    status: outcome === 'denied' ? 403 : outcome === 'failed' ? 409 : 200,
    request_id: `req_seed${i}`,
    source_ip: '10.0.0.1',
    details: { n: i },
  };
}

const suite = setupScreenSuite({
  setup: (s) => {
    insertAuditBatch(
      s.server.db,
      Array.from({ length: SEEDED }, (_, i) => seed(i)),
    );
    outDir = join(tempDir('aa-audit-export'), 'out');
    mkdirSync(outDir);
  },
});

interface AuditRow {
  id: string;
  target_id: string | null;
  action: string;
  actor_subject: string;
  outcome: string;
  details: string;
}
const db = () => suite.db;
const all = (where = '1 = 1', ...args: unknown[]) =>
  db()
    .prepare(
      `SELECT id, target_id, action, actor_subject, outcome, details FROM audit WHERE ${where} ORDER BY at_ms DESC, seq DESC`,
    )
    .all(...args) as AuditRow[];
/** As an audit export has them: in seq order, the hash chain's. */
const written = (where: string, ...args: unknown[]) =>
  db()
    .prepare(`SELECT id, target_id, action, actor_subject, outcome, details FROM audit WHERE ${where} ORDER BY seq`)
    .all(...args) as AuditRow[];
const count = () => (db().prepare('SELECT COUNT(*) AS n FROM audit').get() as { n: number }).n;

/** Table rows of the frame (they start with the time). */
const tableRows = (f: string) => f.split('\n').filter((l) => /^[› ] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /.test(l));
const firstRow = (f: string) => tableRows(f)[0] ?? '';
const clearField = (h: DashboardHarness, n = 48) => h.press(...Array<string>(n).fill('backspace'));

describe('audit screen', () => {
  it('lists entries newest first with time, actor (role), action, target, outcome badge and status', async () => {
    const d = suite.render({ screen: 'audit' });
    const f = await d.waitForText(tid(0));
    const time = new Date(NOW - 10 * 60_000).toISOString().slice(0, 19).replace('T', ' ');
    expect(firstRow(f)).toMatch(
      new RegExp(
        `${time}\\s+alice@corp\\.example \\(it_admin\\)\\s+gateway\\.key\\.create\\s+gateway key ${tid(0)}\\s+▲ denied\\s+403`,
      ),
    );
    expect(f).toMatch(
      /bob@corp\.example \(app_owner\)\s+gateway\.key\.revoke\s+gateway key key_seed0001\s+● success\s+200/,
    );
    expect(f).toContain('all time, no other filters · page 1 · 50 per page · more (] older)');
    expect(f).toContain('row 1 of 50');
  });

  it('says the key the operator has for older entries: a config that rebinds next-page is followed', async () => {
    const display = { theme: 'dark' as const, aliases: {}, keys: { 'next-page': ['>'] }, screenPrefs: {} };
    const d = suite.render({ screen: 'audit', display });
    await d.waitForText('page 1 · 50 per page · more (> older)');
    await d.press('>');
    await d.waitForText('page 2 · 50 per page');
  });

  it('filters on the server by actor, action prefix and outcome', async () => {
    // wide enough for the whole summary line: the filters, then the chain's state
    const d = suite.render({ screen: 'audit', columns: 220 });
    await d.waitForText(tid(0));
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('tab', 'tab', 'tab');
    await d.type('bob@corp.example');
    await d.press('tab');
    await d.type('gateway.key.*');
    await d.press('tab', 'right', 'right'); // outcome: any → success → denied
    await d.press('enter');
    const expected = all("actor_subject = 'bob@corp.example' AND action LIKE 'gateway.key.%' AND outcome = 'denied'");
    expect(expected.length).toBe(20);
    // the page holds all 20: a client-side filter over one page of 50 could not find them
    const f = await d.waitForText(`row 1 of ${expected.length}`);
    expect(f).toContain('actor bob@corp.example · action gateway.key.* · outcome denied');
    const rows = tableRows(f);
    expect(rows.length).toBeGreaterThan(5);
    for (const r of rows)
      expect(r).toMatch(/bob@corp\.example \(app_owner\)\s+gateway\.key\.(create|revoke)\s+.*▲ denied\s+403/);
    expect(firstRow(f)).toContain(expected[0].target_id!);

    // an exact action
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('tab', 'tab', 'tab');
    await clearField(d, 20);
    await d.press('tab');
    await clearField(d, 20);
    await d.type('model.activate');
    await d.press('tab', 'left', 'left'); // back to any outcome
    await d.press('enter');
    const exact = all("action = 'model.activate'");
    await d.waitForText('action model.activate');
    const g = await d.waitFor(
      (x) => tableRows(x).length > 0 && tableRows(x).every((r) => r.includes('model.activate')),
      'only model.activate rows',
    );
    expect(firstRow(g)).toContain(exact[0].target_id!);
    expect(g).toContain('all time · action model.activate · page 1 · 50 per page · more (] older)');
  });

  it('pages through the whole history to the oldest entry and back', async () => {
    const d = suite.render({ screen: 'audit' });
    await d.waitForText(tid(0));
    const everything = all();
    await d.press(']');
    await d.waitForText('page 2 · 50 per page · more');
    await d.waitFor((f) => firstRow(f).includes(everything[50].target_id!), 'page 2 to start with the 51st newest');
    expect(d.frame()).toMatch(/^› /m); // the cursor is back on the first row
    await d.press(']');
    await d.waitFor((f) => f.includes('page 3 ·') && firstRow(f).includes(everything[100].target_id!), 'page 3');
    await d.press('[');
    await d.waitFor((f) => f.includes('page 2 ·') && firstRow(f).includes(everything[50].target_id!), 'back on page 2');
    await d.press('{');
    await d.waitFor((f) => f.includes('page 1 ·') && firstRow(f).includes(everything[0].target_id!), 'back on page 1');

    // 500 per page: three pages, the last ends with the oldest entry
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('tab', 'tab', 'tab', 'tab', 'tab', 'tab', 'tab', 'tab', 'right', 'right', 'right');
    await d.waitFor((f) => /› Per page\s+‹ 500 ›/.test(f), '500 per page chosen');
    await d.press('enter');
    await d.waitForText('page 1 · 500 per page · more');
    await d.press(']');
    await d.waitForText('page 2 · 500 per page · more');
    await d.press(']');
    const last = await d.waitForText('page 3 · 500 per page · oldest page');
    expect(last).toContain(`row 1 of ${everything.length - 1000}`);
    await d.press('end');
    const end = await d.waitForText(tid(SEEDED - 1));
    expect(end).toContain(`row ${everything.length - 1000} of ${everything.length - 1000}`);
    expect(end).toMatch(new RegExp(`^› .*${tid(SEEDED - 1)}`, 'm'));
    await d.press(']');
    await d.waitForText('No older entries');
    expect(d.frame()).toContain('Page 3 is the last page');
    await d.press('enter');
    await d.press('[');
    await d.waitForText('page 2 · 500 per page');
  });

  it('pages a "last day" range from a start frozen when paging begins', async () => {
    const d = suite.render({ screen: 'audit' });
    await d.waitForText(tid(0));
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('right', 'right'); // all → last hour → last day
    await d.press('tab', 'tab', 'tab', 'tab', 'tab', 'tab', 'tab', 'tab', 'right', 'right', 'right');
    await d.press('enter');
    await d.waitForText('last day, no other filters · page 1 · 500 per page · more (] older)');
    await d.press(']');
    const f = await d.waitForText(
      /since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(last day\), no other filters · page 2 · 500 per page · more \(\] older\)/,
    );
    expect(firstRow(f)).toContain(all()[500].target_id!);
    await d.press('[');
    await d.waitForText('last day, no other filters · page 1 · 500 per page · more (] older)');
  });

  it('exports the filtered trail for an auditor: csv rows match the server, with rows, bytes, path and sha256', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit' });
    await d.waitForText('READ-ONLY');
    await d.waitForText(tid(0));
    expect(d.frame()).toMatch(/w export {2}/);
    const hints = d
      .frame()
      .split('\n')
      .find((l) => l.includes('w export'))!;
    expect(hints).not.toContain('✕'); // nothing on this screen is disabled for an auditor
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('tab', 'tab', 'tab', 'tab');
    await d.type('channel.update');
    await d.press('enter');
    await d.waitForText('action channel.update');
    const before = count();

    await d.press('w');
    const form = await d.waitForText('Export the audit trail');
    expect(form).toMatch(/File\s+\.\/audit-\d{8}T\d{6}Z\.csv/);
    expect(form).toContain('Filters: all time · action channel.update.');
    const dest = join(outDir, 'trail.csv');
    await d.press('tab');
    await clearField(d, 40);
    await d.type(dest);
    await d.press('enter');
    const done = await d.waitForText('Export written', 10_000);

    const expected = written("action = 'channel.update'"); // the file is in the order written (the chain's)
    const text = readFileSync(dest);
    const records = parse(text, { columns: true }) as Record<string, string>[];
    expect(records.map((r) => r.id)).toEqual(expected.map((e) => e.id));
    expect(records[0]).toMatchObject({
      action: 'channel.update',
      'actor.subject': expected[0].actor_subject,
      'target.id': expected[0].target_id,
    });
    expect(done).toContain(`rows    ${expected.length.toLocaleString('en-US')}`);
    expect(done).toContain(`bytes   ${statSync(dest).size.toLocaleString('en-US')}`);
    expect(done).toContain(`path    ${dest}`);
    expect(done).toContain(`sha256  ${createHash('sha256').update(text).digest('hex')}`);
    // the checkpoint's value in the same column: its label (wider than the column) on a line of its own
    const dialog = done.split('\n').map((l) => /│ (.*?) *│/.exec(l)?.[1] ?? '');
    const label = dialog.indexOf('checkpoint');
    expect(label, done).toBeGreaterThan(0);
    expect(dialog[label + 1]).toMatch(/^ {8}\/\S/);
    expect(dialog[label + 2]).toMatch(/^ {10}\S/); // a long path continues past the column
    expect(
      dialog
        .slice(label + 1, label + 4)
        .join('')
        .replace(/\s/g, ''),
    ).toContain(`${dest}.checkpoint.json(signedstatement`);
    expect(dialog[label - 1]).toMatch(/^sha256 {2}[0-9a-f]{64}$/);

    // the export is itself audited (by design, for every role); nothing else was recorded
    const added = all().slice(0, count() - before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ action: 'audit.export', actor_subject: 'aude-auditor', outcome: 'success' });
    expect(JSON.parse(added[0].details)).toMatchObject({ format: 'csv', filters: { action: 'channel.update' } });
  });

  it('exports jsonl with the current filters', async () => {
    const d = suite.render({ screen: 'audit' });
    await d.waitForText(tid(0));
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('tab', 'tab', 'tab', 'tab', 'tab', 'right', 'right', 'right'); // outcome failed
    await d.press('enter');
    await d.waitForText('outcome failed');
    await d.press('w');
    await d.waitForText('Export the audit trail');
    await d.press('right'); // jsonl
    await d.press('tab');
    await clearField(d, 40);
    const dest = join(outDir, 'failed.jsonl');
    await d.type(dest);
    await d.press('enter');
    const done = await d.waitForText('Export written', 10_000);
    const lines = readFileSync(dest, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; outcome: string; actor: { subject: string } });
    const expected = written("outcome = 'failed'");
    expect(lines.map((l) => l.id)).toEqual(expected.map((e) => e.id));
    expect(lines[0].actor.subject).toBe(expected[0].actor_subject);
    expect(done).toContain(`rows    ${expected.length}`);
  });

  it('a write that cannot happen is explained, nothing is exported, and the screen keeps working', async () => {
    const d = suite.render({ screen: 'audit' });
    await d.waitForText(tid(0));
    const before = count();
    await d.press('w');
    await d.waitForText('Export the audit trail');
    await d.press('tab');
    await clearField(d, 40);
    await d.type('/nonexistent-aa-dir/trail.csv');
    await d.press('enter');
    const f = await d.waitForText('export failed');
    expect(f.replace(/[│\s]+/g, ' ')).toContain(
      'cannot write /nonexistent-aa-dir/trail.csv: the directory /nonexistent-aa-dir does not exist. Nothing was exported.',
    );
    expect(count()).toBe(before); // the appliance was not even asked
    await d.press('enter');
    await d.waitFor((x) => !x.includes('export failed'), 'the error to close');
    await d.press(']');
    await d.waitForText('page 2 · 50 per page');
  });

  it('a custom range that ends before it starts is refused in the form, next to Until, and nothing is sent', async () => {
    const d = suite.render({ screen: 'audit' });
    await d.waitForText(tid(0));
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('right', 'right', 'right', 'right', 'right'); // custom
    await d.press('tab');
    await d.type('2026-11-22 12:00');
    await d.press('tab');
    await d.type('2026-11-22 11:00');
    await d.press('enter');
    const f = await d.waitForText('✕ Until (custom): must be after From (2026-11-22 12:00:00)');
    expect(f).toContain('Filter the audit trail'); // still open
    expect(f).toMatch(/› Until \(custom\)\s+2026-11-22 11:00/); // the focus is on the field to fix
    const asked = () => Object.keys(d.deps.resources.getState().entries).join('\n');
    expect(asked()).not.toContain('2026-11-22T11:00'); // never polled
    // an Until after From is accepted
    await d.press(...Array<string>(5).fill('backspace'));
    await d.type('13:00');
    await d.press('enter');
    await d.waitForText('from 2026-11-22 12:00:00 until 2026-11-22 13:00:00');
    expect(asked()).toContain('end_time:"2026-11-22T13:00:00Z"');
    expect(asked()).not.toContain('2026-11-22T11:00');
  });

  it('a custom range takes a time before now as the CLI does: From 2h is sent as the time two hours ago', async () => {
    const d = suite.render({ screen: 'audit' });
    await d.waitForText(tid(0));
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('right', 'right', 'right', 'right', 'right'); // custom
    await d.press('tab');
    await d.type('2h');
    const before = Date.now();
    await d.press('enter');
    const f = await d.waitForText('from 20');
    const after = Date.now();
    const asked = Object.keys(d.deps.resources.getState().entries).join('\n');
    const sent = /start_time:"([^"]+)"/.exec(asked)?.[1];
    expect(sent).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const start = Date.parse(sent!);
    expect(start).toBeGreaterThanOrEqual(Math.floor((before - 2 * 3_600_000) / 1000) * 1000);
    expect(start).toBeLessThanOrEqual(after - 2 * 3_600_000);
    expect(f).toContain(`from ${sent!.slice(0, 19).replace('T', ' ')}`);
  });

  it('a filter the appliance refuses shows in plain words with code and request id; c recovers', async () => {
    const d = suite.render({ screen: 'audit' });
    await d.waitForText(tid(0));
    // a state the form no longer produces (e.g. kept from an older dashboard): the appliance refuses it
    patchScreen(d.deps.ui, 'audit', {
      extra: { range: 'custom', from: '2026-11-21T10:00:00Z', until: '2026-11-21T09:00:00Z' },
    });
    const f = await d.waitForText('SVC-ADMIN-400');
    expect(f).toContain('✕ ERROR loading audit: The appliance rejected the request as invalid');
    // and why: the first reason the appliance gave
    expect(f.replace(/\s+/g, ' ')).toMatch(/end_time\W+must be after start_time/);
    expect(f).toMatch(/code SVC-ADMIN-400 · request req_\w+/);
    await d.press('c');
    await d.waitForText(tid(0));
    expect(d.frame()).not.toContain('SVC-ADMIN-400');
  });

  it('exports exactly the range of the pages on screen: the start frozen when paging began, not a new one', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit' });
    await d.waitForText(tid(0));
    // As if the operator chose "last day", pressed n a minute ago and has looked at page 2 since.
    const anchor = isoSeconds(Math.floor((Date.now() - DAY - 60_000) / 10_000) * 10_000);
    const page1 = await suite.server.call('GET', `/audit?limit=50&start_time=${anchor}&action=gateway.key.*`, {
      role: 'auditor',
    });
    const cursor = (page1.json as { next_cursor: string }).next_cursor;
    expect(cursor).toBeTruthy();
    patchScreen(d.deps.ui, 'audit', {
      extra: { range: '24h', filters: { action: 'gateway.key.*' }, anchor, cursors: [cursor] },
    });
    const since = `since ${anchor.slice(0, 19).replace('T', ' ')} (last day)`;
    await d.waitForText(`${since} · action gateway.key.* · page 2 · 50 per page · more (] older)`);
    const before = count();

    await d.press('w');
    const form = await d.waitForText('Export the audit trail');
    expect(form).toContain(`Filters: ${since} · action gateway.key.*.`);
    const dest = join(outDir, 'paged-range.csv');
    await d.press('tab');
    await clearField(d, 40);
    await d.type(dest);
    await d.press('enter');
    const done = await d.waitForText('Export written', 10_000);
    expect(done).toContain(since);

    const added = all().slice(0, count() - before);
    expect(added).toHaveLength(1);
    expect(added[0].action).toBe('audit.export');
    expect(JSON.parse(added[0].details).filters).toEqual({ start_time: anchor, action: 'gateway.key.*' });
    const expected = written("action LIKE 'gateway.key.%' AND at_ms >= ?", Date.parse(anchor));
    const records = parse(readFileSync(dest), { columns: true }) as Record<string, string>[];
    expect(records.map((r) => r.id)).toEqual(expected.map((e) => e.id));
  });

  it('on page 1 of a rolling range the export states the exact start it sends', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit' });
    await d.waitForText(tid(0));
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('right', 'right'); // last day
    await d.press('enter');
    await d.waitForText('last day, no other filters · page 1 · 50 per page · more (] older)');
    const before = count();
    await d.press('w');
    const form = await d.waitForText('Export the audit trail');
    const stated = /Filters: since (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \(last day\), no other filters\./.exec(form)?.[1];
    expect(stated).toBeDefined();
    await d.press('tab');
    await clearField(d, 40);
    await d.type(join(outDir, 'page1-range.csv'));
    await d.press('enter');
    const done = await d.waitForText('Export written', 10_000);
    expect(done).toContain(`since ${stated} (last day)`);
    const added = all().slice(0, count() - before);
    expect(JSON.parse(added[0].details).filters).toEqual({ start_time: `${stated!.replace(' ', 'T')}Z` });
  });

  it('an auditor browsing, filtering and paging leaves no trace and changes nothing', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit' });
    await d.waitForText(tid(0));
    const before = all();
    await d.press(']');
    await d.waitForText('page 2 ·');
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    await d.press('tab', 'tab', 'tab');
    await d.type('carol@corp.example');
    await d.press('enter');
    await d.waitForText('actor carol@corp.example');
    await d.press('?');
    await d.waitForText(/w\s+export/);
    expect(d.frame()).not.toContain('changes the appliance');
    await d.press('esc');
    expect(all()).toEqual(before);
  });
});
