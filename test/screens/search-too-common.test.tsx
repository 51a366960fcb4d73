import { describe, expect, it } from 'vitest';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { SUMMARY_SCAN_BUDGET } from '../../src/server/governance/search.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';

/**
 * Issue 37 §1, as an auditor sees it: a search text too common to count over the range (more entries
 * than a count may read) still lists its page; where the count would be, the page summary says it
 * was not counted and why, and no error banner shouts about a page that is fine.
 */
const NOW = Date.now();
const ROWS = SUMMARY_SCAN_BUDGET + 500;
const seed = (i: number): AuditSeed => ({
  at_ms: NOW - 60_000 - i * 1000,
  actor: { subject: 'svc-common@corp.example', role: 'it_admin' },
  action: 'connector.ingest',
  target: { type: 'connector', id: `conn_${i % 7}` },
  outcome: 'success',
  status: 202,
  request_id: `req_c${i}`,
  source_ip: null,
  details: { n: i },
});

const suite = setupScreenSuite({
  setup: (s) => {
    insertAuditBatch(
      s.server.db,
      Array.from({ length: ROWS }, (_, i) => seed(i)),
    );
  },
});

describe('a search too common to count', () => {
  it('lists its page, says "not counted: too common" where the count goes, and raises no error banner', async () => {
    const server = await suite.server.call('GET', '/audit/summary?q=svc-common', { role: 'auditor' });
    expect(server.status).toBe(422);
    const d = suite.render({ role: 'auditor', screen: 'audit', columns: 160 });
    await d.waitForText('svc-common@corp.example');
    await d.press('/');
    await d.type('svc-common');
    await d.press('enter');
    const f = await d.waitForText('matches of "svc-common" not counted: too common over this range (f narrows it)');
    expect(f).toMatch(/svc-common@corp\.example/);
    expect(f).not.toContain('ERROR');
    expect(d.allFrames()).not.toMatch(/ERROR loading audit-total/);
  });
});
