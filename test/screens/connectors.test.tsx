import { describe, expect, it } from 'vitest';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { afterARefresh } from '../helpers/dashboard.js';

const suite = setupScreenSuite();

const jobs = () =>
  suite.db.prepare('SELECT job_id, connector_id, source_id, state FROM jobs ORDER BY seq').all() as {
    job_id: string;
    connector_id: string;
    source_id: string;
    state: string;
  }[];

describe('connectors screen', () => {
  it('shows state, last sync and RBAC labels', async () => {
    const d = suite.render({ screen: 'connectors' });
    const f = await d.waitForText('ERP database');
    expect(f).toMatch(/Team share\s+document-sharing\s+healthy\s+never\s+staff\s+1/);
    expect(f).toMatch(/ERP database\s+relational-database\s+\w+\s+never\s+finance/);
    expect(f).toContain('3 connectors');
  });

  it('ingests a chosen source and follows the job until it completes', async () => {
    const d = suite.render({ screen: 'connectors' });
    await d.waitForText('Team share');
    await selectRow(d, 'Team share');
    await d.press('i');
    await d.waitForText('Ingest from Team share');
    expect(d.frame()).toContain('src_docs');
    await d.press('enter');
    const done = await d.waitForText('Ingestion finished', 10_000);
    const job = jobs().at(-1)!;
    expect(job).toMatchObject({ connector_id: 'conn_docs', source_id: 'src_docs', state: 'succeeded' });
    expect(done).toContain(job.job_id);
    expect(done).toMatch(/items\s+3/);
    const entry = suite.auditRows().find((r) => r.action === 'connector.ingest' && r.outcome === 'success')!;
    expect(done).toContain(`request  ${entry.request_id}`);
    await d.press('enter');
    // the connector's last sync now shows the job's items
    await d.waitFor((f) => /Team share.*\d+ s ago, 3 items/.test(f), 'last sync to update');
  });

  it('shows a failed job as failed, with its error', async () => {
    const d = suite.render({ screen: 'connectors' });
    await d.waitForText('Cloud CRM');
    await selectRow(d, 'Cloud CRM');
    await d.press('i');
    await d.waitForText('Ingest from Cloud CRM');
    await d.press('enter');
    const f = await d.waitForText('Ingestion failed', 10_000);
    expect(f).toContain('✕ ERROR');
    expect(f).toMatch(/error\s+\S+/);
    expect(jobs().at(-1)).toMatchObject({ connector_id: 'conn_crm', state: 'failed' });
    // back on the list, the line under it says why the connector is in error, which no column shows
    await d.press('enter');
    const under = await d.waitForText(/Cloud CRM: last sync failed \d+ s ago: \S+/);
    const job = suite.db.prepare('SELECT error FROM jobs ORDER BY seq DESC LIMIT 1').pluck().get() as string;
    expect(under.replace(/\s+/g, ' ')).toContain(job.slice(0, 40));
  });

  it('an auditor cannot start an ingestion: explained, nothing sent', async () => {
    const d = suite.render({ role: 'auditor', screen: 'connectors' });
    await d.waitForText('READ-ONLY');
    await d.waitForText('Team share');
    expect(d.frame()).toMatch(/i ingest ✕.*role auditor is read-only/);
    const before = { audit: suite.auditRows(), jobs: jobs() };
    await d.press('i');
    await d.waitForText('ingest: disabled: role auditor is read-only. Nothing was sent.');
    expect(d.frame()).not.toContain('Ingest from');
    await afterARefresh(d);
    expect(suite.auditRows()).toEqual(before.audit);
    expect(jobs()).toEqual(before.jobs);
  });

  it('a refused token shows in plain words with code and request id', async () => {
    const { issueToken, revokeToken } = await import('../../src/server/tokens.js');
    const { token } = issueToken(suite.db, 'it_admin', 'soon-revoked');
    revokeToken(suite.db, 'soon-revoked');
    const d = suite.render({ token, screen: 'connectors' });
    const f = await d.waitForText('SVC-ADMIN-401');
    expect(f).toContain('refused the token (401 SVC-ADMIN-401)');
    await d.waitForText(/request req_\w+/);
    expect(d.frame()).toContain('The appliance did not accept the credential');
  });
});
