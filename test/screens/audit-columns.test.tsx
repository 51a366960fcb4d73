import { describe, expect, it } from 'vitest';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { widthOf } from '../../src/dashboard/kit/text.js';
import { tableTime } from '../../src/dashboard/kit/table-time.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';

/**
 * An auditor's walkthrough reads each row's outcome: at 60 columns the list keeps Time, Actor, Action
 * and Outcome (the time to the minute, without the year), so a denied or failed request is seen
 * without the cursor on it; 80 and 120 columns keep the whole time and the target.
 */
const NOW = Date.now();
const ROWS = 12;
const outcomeOf = (i: number) => (i % 3 === 1 ? 'denied' : i % 3 === 2 ? 'failed' : 'success');

function seed(i: number): AuditSeed {
  const outcome = outcomeOf(i);
  return {
    at_ms: NOW - 5 * 60_000 - i * 60_000,
    actor: { subject: 'alice.martin@northwind.example', role: 'it_admin' },
    // the longest action a page commonly holds (20 wide) still leaves the actor its room
    action: i % 2 ? 'agent.budgets.update' : 'gateway.key.revoke',
    target: { type: 'gateway_key', id: `key_cols${i}` },
    outcome,
    status: outcome === 'denied' ? 403 : outcome === 'failed' ? 409 : 200,
    request_id: `req_cols${i}`,
    source_ip: '10.0.0.1',
    details: {},
  };
}

const suite = setupScreenSuite({
  setup: (s) => {
    insertAuditBatch(
      s.server.db,
      Array.from({ length: ROWS }, (_, i) => seed(i)),
    );
  },
});

/** Table rows of the frame: they start with the time, whole or short. */
const tableRows = (f: string) => f.split('\n').filter((l) => /^[› ] (\d{4}-)?\d\d-\d\d \d\d:\d\d(:\d\d)? {2}/.test(l));

describe('audit columns on a short line', () => {
  it('at 60x20 each row says its time, actor, action and outcome', async () => {
    const d = suite.render({ role: 'auditor', screen: 'audit', columns: 60, rows: 20 });
    const f = await d.waitForText('alice.martin');
    expect(f).toMatch(/ UTC ▼\s+Actor \(role\)\s+Action\s+Outcome/);
    const rows = tableRows(f);
    expect(rows.length).toBeGreaterThan(5);
    for (const r of rows) {
      expect(widthOf(r)).toBeLessThanOrEqual(60);
      expect(r).toMatch(
        /^[› ] \d\d-\d\d \d\d:\d\d {2}alice\.mart\S*\s+(agent\.budgets\.update|gateway\.key\.revoke)\s+/,
      );
    }
    expect(rows.filter((r) => /▲ denied\s*$/.test(r)).length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((r) => /✕ failed\s*$/.test(r)).length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((r) => /● success\s*$/.test(r)).length).toBeGreaterThanOrEqual(3);
    // the newest entry is row 1: its short time is the whole one's month, day, hour and minute
    const newest = suite.auditRows().reduce((a, b) => (b.at_ms > a.at_ms ? b : a));
    const whole = tableTime(newest.at);
    expect(rows[0]).toContain(`› ${whole.slice(5, 16)}  `);
    // the header says the short form's zone; nothing is cut at the right edge
    expect(f).not.toMatch(/Time \(UT…/);
  });

  for (const [columns, rows] of [
    [80, 24],
    [120, 40],
  ] as const)
    it(`at ${columns}x${rows} the time stays whole and the target is shown`, async () => {
      const d = suite.render({ role: 'auditor', screen: 'audit', columns, rows });
      const f = await d.waitForText('alice.martin');
      expect(f).toMatch(/Time \(UTC\) ▼\s+Actor \(role\)\s+Action\s+Target\s+Outcome/);
      const shown = tableRows(f);
      expect(shown.length).toBeGreaterThan(5);
      for (const r of shown) expect(r).toMatch(/^[› ] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}alice\.mart/);
      expect(shown.filter((r) => r.includes('▲ denied')).length).toBeGreaterThanOrEqual(3);
    });
});
