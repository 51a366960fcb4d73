import { describe, expect, it } from 'vitest';
import { screenState } from '../../src/dashboard/state/ui.js';
import { auditScreen } from '../../screens/audit.js';
import { jobsScreen } from '../../screens/jobs.js';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { snapshot } from '../helpers/server.js';
import { selectRow, setupScreenSuite } from '../helpers/screen-suite.js';
import { until } from '../helpers/until.js';

let linked: { id: string };
let tight: { id: string; secret: string };

const suite = setupScreenSuite({
  setup: async (s) => {
    linked = (await s.call('POST', '/gateway/keys', { body: { name: 'linked-key' } })).json as { id: string };
    await s.call('PUT', `/gateway/keys/${linked.id}/quota`, {
      body: { requests_per_minute: 30, tokens_per_minute: null, tokens_per_day: null },
    });
    tight = (
      await s.call('POST', '/gateway/keys', {
        body: { name: 'tight-key', quota: { requests_per_minute: 1, tokens_per_minute: null, tokens_per_day: null } },
      })
    ).json as { id: string; secret: string };
  },
});

const tableRows = (f: string) => f.split('\n').filter((l) => /^[› ] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /.test(l));
const header = (f: string) => f.split('\n')[1] ?? '';
const stored = () => ({ audit: snapshot(suite.server, 'audit'), keys: snapshot(suite.server, 'gateway_keys') });
const auditState = (d: DashboardHarness) => screenState(d.deps.ui.getState(), 'audit');

/** Each object screen, a row on it, and the audit target it stands for. */
const OBJECTS = [
  { screen: 'connectors', row: 'Cloud CRM', type: 'connector', search: 'conn_crm' },
  { screen: 'channels', row: 'Web chat', type: 'channel', search: 'chan_web' },
  { screen: 'keys', row: 'linked-key', type: 'gateway_key', search: () => linked.id },
  { screen: 'models', row: 'Mistral 7B', type: 'model', search: 'mistral-7b' },
  { screen: 'routing', row: 'summarize', type: 'routing', search: 'summarize' },
  { screen: 'budgets', row: '(defaults)', type: 'budgets', search: null },
];

describe("h opens an object's audit history", () => {
  for (const o of OBJECTS) {
    it(`on ${o.screen}: the audit list filtered to ${o.type} ${o.search ? 'and searching its id' : ''}, for an auditor`, async () => {
      const search = typeof o.search === 'function' ? o.search() : o.search;
      // the summary line names the target type right after the count, before the paging words
      const d = suite.render({ role: 'auditor', screen: o.screen });
      await d.waitForText(o.row);
      if (o.screen !== 'budgets') await selectRow(d, o.row);
      const before = stored();
      await d.press('h');
      await d.waitFor((f) => header(f).includes('[audit]'), 'the audit screen');
      expect(auditState(d)).toMatchObject({ filter: search ?? '', extra: { filters: { target_type: o.type } } });
      // what the audit list asks the appliance for: that target type, and its id as the search
      const [list, total] = auditScreen.resources(auditState(d));
      expect(list.query).toMatchObject({ target_type: o.type, ...(search ? { q: search } : {}) });
      expect(total.query).toMatchObject({ target_type: o.type, ...(search ? { q: search } : {}) });
      await d.waitForText(`target type ${o.type}`);
      expect(stored()).toEqual(before);
    });
  }

  it("lists exactly the key's own entries, by its name", async () => {
    const d = suite.render({ role: 'auditor', screen: 'keys' });
    await selectRow(d, 'linked-key');
    await d.press('h');
    const own = snapshot(suite.server, 'audit').filter(
      (r) => (r as { target_id: string }).target_id === linked.id,
    ).length;
    expect(own).toBe(2); // created, quota set
    const f = await d.waitFor((x) => tableRows(x).length === own, `the key's ${own} entries`);
    expect(tableRows(f).every((l) => l.includes('gateway key linked-key'))).toBe(true);
    await d.waitForText(`${own} match "${linked.id}"`);
  });
});

describe("the way back from an object's history", () => {
  it('at 80x24 the hint line says what each Esc does: it clears the search, then returns to the key', async () => {
    const d = suite.render({ role: 'auditor', screen: 'keys', columns: 80, rows: 24 });
    await selectRow(d, 'linked-key');
    await d.press('h');
    const f = await d.waitForText(`match "${linked.id}"`);
    const hints = (x: string) =>
      x
        .split('\n')
        .filter((l) => l.includes('? help'))
        .at(-1) ?? '';
    // at 80 columns beside the audit screen's own keys it says its short words; help says where it goes back to
    expect(hints(f)).toMatch(/Esc clear\b/);
    expect(hints(f)).not.toMatch(/Esc back\b/);
    // what is shown, and under which filters (the count names the search), before the paging words that an
    // 80-column line cuts
    expect(f).toMatch(/\d+ match "[^"]+" · all time · target type gateway_key · page 1\b/);
    await d.press('esc');
    await d.waitFor(
      (x) => !x.includes(`match "${linked.id}"`) && header(x).includes('[audit]') && /Esc back\b/.test(hints(x)),
      'the search cleared, the way back offered',
    );
    await d.press('esc');
    const back = await d.waitFor((x) => header(x).includes('[keys]'), 'back on keys');
    expect(back).toMatch(/› linked-key/);
  });
});

describe('J on a connector', () => {
  it('lists its jobs with their errors (read-only: an auditor can)', async () => {
    expect(
      (await suite.server.call('POST', '/connectors', { body: { connector_id: 'conn_crm', source_id: 'src_crm' } }))
        .status,
    ).toBe(202);
    const failedJob = () =>
      suite.db.prepare("SELECT job_id, error FROM jobs WHERE connector_id = 'conn_crm' AND state = 'failed'").get() as
        { job_id: string; error: string } | undefined;
    const job = await until('the ingestion to fail', failedJob, 5000);
    expect(job.error).toBeTruthy();
    const d = suite.render({ role: 'auditor', screen: 'connectors' });
    await d.waitForText('Cloud CRM');
    await selectRow(d, 'Cloud CRM');
    const before = stored();
    await d.press('J');
    await d.waitFor((f) => header(f).includes('[jobs]'), 'the jobs screen');
    expect(jobsScreen.resources(screenState(d.deps.ui.getState(), 'jobs'))[0].query).toMatchObject({
      connector_id: 'conn_crm',
    });
    const f = await d.waitForText('Jobs of Cloud CRM');
    const row = f.split('\n').find((l) => l.includes('Accounts') && l.includes('failed'));
    expect(row).toBeDefined();
    expect(row).toContain(job.error.slice(0, 20));
    // Enter on the job shows all of it
    await d.press('enter');
    await d.waitForText(job.job_id);
    expect(stored()).toEqual(before);
  });
});

describe('usage rows have a cursor', () => {
  it("Enter shows a key's rejections by cause beside its quota; set quota is dimmed for an auditor; keys show the last hour's", async () => {
    const call = () =>
      suite.server.call('POST', '/v1/gateway/chat', { role: null, token: tight.secret, body: { max_tokens: 5 } });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(429);
    const d = suite.render({ role: 'auditor', screen: 'usage' });
    await d.waitForText('tight-key');
    for (let i = 0; i < 5 && !/^› *tight-key/m.test(d.frame()); i++) await d.press('down');
    await d.waitForText(/^› *tight-key/m);
    const before = stored();
    await d.press('enter');
    const detail = await d.waitForText('rejected: requests/min');
    expect(detail).toMatch(/rejected: requests\/min\s+1\s+\(quota 1 requests\/min\)/);
    expect(detail).toMatch(/rejected: tokens\/day\s+0\s+\(quota unlimited tokens\/day\)/);
    await d.press('u');
    await d.waitForText('set quota: disabled: role auditor is read-only. Nothing was sent.');
    expect(d.frame()).not.toContain('Quota for tight-key');
    expect(stored()).toEqual(before);

    await d.press('esc', ':');
    await d.type('keys');
    await d.press('enter');
    const keys = await d.waitForText('Rej 1h');
    await d.waitFor((f) => /tight-key .*\d{4}-\d\d-\d\d\s+1\s*$/m.test(f), 'one rejection in the last hour');
    expect(keys).toBeTruthy();
  });

  it("u on a usage row sets that key's quota for an it_admin", async () => {
    const d = suite.render({ screen: 'usage' });
    await d.waitForText('tight-key');
    for (let i = 0; i < 5 && !/^› *tight-key/m.test(d.frame()); i++) await d.press('down');
    await d.waitForText(/^› *tight-key/m);
    await d.press('enter');
    await d.waitForText('rejected: requests/min');
    await d.press('u');
    await d.waitForText('Quota for tight-key');
    await d.press(...Array<string>(8).fill('backspace'));
    await d.type('45');
    await d.press('enter');
    await d.waitForText('Quota saved');
    const q = suite.db.prepare('SELECT requests_per_minute FROM gateway_keys WHERE id = ?').get(tight.id) as {
      requests_per_minute: number;
    };
    expect(q.requests_per_minute).toBe(45);
  });
});
