import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { patchEntry, resourceKey } from '../../src/dashboard/state/resources.js';
import { screenState } from '../../src/dashboard/state/ui.js';
import { auditScreen } from '../../screens/audit.js';
import type { AuditEntry } from '../../src/contract/index.js';
import { screens } from '../../screens/index.js';

// The audit screen sends / to the appliance (q); this test is about the shell's own filter over a
// long list, so it uses the audit list with the filter left to the shell.
const localAudit = {
  ...auditScreen,
  resources: (st: Parameters<typeof auditScreen.resources>[0]) =>
    auditScreen.resources({ ...st, filter: '' }).slice(0, 1),
  list: { ...auditScreen.list!, serverFilter: false, summary: (rows: unknown[]) => `${rows.length} entries` },
};

const suite = setupScreenSuite();

describe('a filter over a long list', () => {
  it('shows the first matches, finishes its search between frames, and then counts every match', async () => {
    // a few real entries from the server, repeated into 60,000 (the audit screen pages by 500;
    // a long list is what the benchmarks hold, and what a future screen may)
    for (const enabled of [false, true])
      await suite.server.call('PUT', '/v1/admin/channels', {
        role: 'it_admin',
        body: { channels: [{ id: 'chan_web', enabled }] },
      });
    const d = suite.render({
      role: 'auditor',
      screen: 'audit',
      screens: screens.map((x) => (x.name === 'audit' ? localAudit : x)),
    });
    await d.waitForText('channel.update');
    d.deps.poller.stop();
    const real = (await d.deps.client.call('listAudit', { query: { limit: 10 } })).data.data;
    const rows: AuditEntry[] = Array.from({ length: 60_000 }, (_, i) => ({
      ...real[i % real.length],
      id: `aud_${i}`,
      actor: { ...real[i % real.length].actor, subject: i % 4 ? `svc-bulk-${i % 7}` : 'alice' },
    }));
    const key = resourceKey(localAudit.resources(screenState(d.deps.ui.getState(), 'audit'))[0]);
    patchEntry(d.deps.resources, key, {
      data: { data: rows, has_more: false, next_cursor: null },
      status: 'ok',
      error: null,
      fetchedAt: Date.now(),
    });
    await d.waitForText('row 1 of 60000');
    await d.press('/');
    await d.type('svc-bulk');
    const expected = rows.filter((r) => r.actor.subject.includes('svc-bulk')).length;
    // the search ends without another key, and the screen then says how many matched
    await d.waitForText(`${expected} of 60000 match "svc-bulk"`, 10_000);
    await d.waitForText(`row 1 of ${expected}`);
    expect(d.frame()).not.toContain('searching');
    // deleting back to a shorter filter answers from what was already searched
    await d.press('backspace', 'backspace');
    const shorter = rows.filter((r) => r.actor.subject.includes('svc-bu')).length;
    await d.waitForText(`${shorter} of 60000 match "svc-bu"`, 10_000);
  });
});
