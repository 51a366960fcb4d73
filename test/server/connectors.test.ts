import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, snapshot, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { Connector, ConnectorList, Job } from '../../src/contract/index.js';
import { jobHold } from '../../src/server/ingest/runner.js';
import { readDirectory, readSqlite } from '../../src/server/ingest/sources.js';

/** Polls GET /jobs/{id} until the job ends (bounded). */
async function waitForJob(s: TestServer, jobId: string, timeoutMs = 5000): Promise<Job> {
  return until(
    `job ${jobId} to end`,
    async () => {
      const res = await s.call('GET', `/jobs/${jobId}`);
      expect(res.status).toBe(200);
      return res.json.state === 'succeeded' || res.json.state === 'failed' ? Job.parse(res.json) : null;
    },
    timeoutMs,
  );
}

async function waitForState(s: TestServer, jobId: string, state: string): Promise<void> {
  await until(
    `job ${jobId} to reach ${state}`,
    async () => (await s.call('GET', `/jobs/${jobId}`)).json.state === state,
  );
}

const connector = async (s: TestServer, id: string) =>
  Connector.parse((await s.call('GET', '/connectors')).json.data.find((c: { id: string }) => c.id === id));

const ingest = (
  s: TestServer,
  connector_id: string,
  source_id: string,
  role: 'it_admin' | 'app_owner' | 'auditor' = 'it_admin',
) => s.call('POST', '/connectors', { role, body: { connector_id, source_id } });

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});
afterEach(() => {
  jobHold.until = null;
});

describe('GET /connectors', () => {
  it('lists the configured connectors in the contract shape, never synced yet', async () => {
    const res = await s.call('GET', '/connectors', { role: 'auditor' });
    expect(res.status).toBe(200);
    const page = ConnectorList.parse(res.json);
    expect(page.data.map((c) => c.id)).toEqual(['conn_docs', 'conn_erp', 'conn_crm']);
    expect(page.data[0]).toEqual({
      id: 'conn_docs',
      name: 'Team share',
      kind: 'document-sharing',
      state: 'healthy',
      last_sync: null,
      last_success: null,
      rbac_labels: ['staff'],
      sources: [{ id: 'src_docs', name: 'Docs' }],
    });
    expect(page.has_more).toBe(false);
  });

  it('pages with limit and after', async () => {
    const first = await s.call('GET', '/connectors?limit=2');
    expect(first.json.data.map((c: Connector) => c.id)).toEqual(['conn_docs', 'conn_erp']);
    expect(first.json.has_more).toBe(true);
    const rest = await s.call('GET', `/connectors?limit=2&after=${first.json.next_cursor}`);
    expect(rest.json.data.map((c: Connector) => c.id)).toEqual(['conn_crm']);
    expect(rest.json.has_more).toBe(false);
  });
});

describe('POST /connectors (ingestion)', () => {
  it('walks the directory source, counts its 3 files, and records the last sync', async () => {
    const res = await ingest(s, 'conn_docs', 'src_docs');
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ accepted: true, job_id: expect.stringMatching(/^job_/) });
    const job = await waitForJob(s, res.json.job_id);
    expect(job).toMatchObject({
      job_id: res.json.job_id,
      connector_id: 'conn_docs',
      source_id: 'src_docs',
      state: 'succeeded',
      items: 3,
      error: null,
    });
    expect(Date.parse(job.started_at!)).toBeGreaterThanOrEqual(Date.parse(job.created_at));
    expect(Date.parse(job.finished_at!)).toBeGreaterThanOrEqual(Date.parse(job.started_at!));

    const c = await connector(s, 'conn_docs');
    expect(c.state).toBe('healthy');
    expect(c.last_sync).toEqual({
      at: job.finished_at,
      status: 'succeeded',
      job_id: job.job_id,
      items: 3,
      error: null,
    });
    expect(
      s.server.db
        .prepare('SELECT last_sync_job_id, last_sync_items FROM connector_state WHERE connector_id = ?')
        .get('conn_docs'),
    ).toEqual({ last_sync_job_id: job.job_id, last_sync_items: 3 });

    const audit = s.server.db
      .prepare(
        "SELECT target_type, target_id, outcome, status, details FROM audit WHERE action = 'connector.ingest' AND outcome = 'success' ORDER BY seq DESC",
      )
      .get() as Record<string, unknown>;
    expect(audit).toMatchObject({ target_type: 'connector', target_id: 'conn_docs', outcome: 'success', status: 202 });
    expect(JSON.parse(audit.details as string)).toEqual({ source_id: 'src_docs', job_id: job.job_id });
  });

  it('opens the SQLite source read-only and counts 5 invoices + 2 customers', async () => {
    const res = await ingest(s, 'conn_erp', 'src_erp', 'app_owner');
    expect(res.status).toBe(202);
    const job = await waitForJob(s, res.json.job_id);
    expect(job).toMatchObject({ state: 'succeeded', items: 7, error: null });
    expect((await connector(s, 'conn_erp')).last_sync).toMatchObject({
      status: 'succeeded',
      items: 7,
      job_id: job.job_id,
    });
  });

  it('fails a remote source with a clear reason and shows the connector in error', async () => {
    const res = await ingest(s, 'conn_crm', 'src_crm');
    expect(res.status).toBe(202);
    const job = await waitForJob(s, res.json.job_id);
    expect(job.state).toBe('failed');
    expect(job.error).toBe('no crm driver is installed on this host to reach https://crm.example.invalid');
    expect(job.items).toBe(0);
    const c = await connector(s, 'conn_crm');
    expect(c.state).toBe('error');
    expect(c.last_sync).toMatchObject({ status: 'failed', job_id: job.job_id, items: 0, error: job.error });
  });

  it('answers 404 for an unknown connector, source or job, and creates no job', async () => {
    const before = snapshot(s, 'jobs');
    const noConn = await ingest(s, 'conn_nope', 'src_docs');
    expect(noConn.status).toBe(404);
    expect(noConn.json).toMatchObject({ code: 'SVC-ADMIN-404', detail: expect.stringContaining('conn_nope') });
    // a source that exists, but on another connector
    const noSource = await ingest(s, 'conn_docs', 'src_erp');
    expect(noSource.status).toBe(404);
    expect(noSource.json.detail).toContain('src_erp');
    expect(snapshot(s, 'jobs')).toEqual(before);
    const noJob = await s.call('GET', '/jobs/job_doesnotexist');
    expect(noJob.status).toBe(404);
    expect(noJob.json.code).toBe('SVC-ADMIN-404');
  });

  it('refuses a second ingestion of a source while the first is in flight (409), then allows it again', async () => {
    let release!: () => void;
    jobHold.until = new Promise<void>((r) => {
      release = r;
    });
    const both = await Promise.all([
      ingest(s, 'conn_docs', 'src_docs'),
      ingest(s, 'conn_docs', 'src_docs', 'app_owner'),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([202, 409]);
    const accepted = both.find((r) => r.status === 202)!;
    const refused = both.find((r) => r.status === 409)!;
    expect(refused.json).toMatchObject({
      code: 'SVC-ADMIN-409',
      detail: expect.stringContaining(accepted.json.job_id),
    });
    expect(
      s.server.db
        .prepare("SELECT count(*) FROM jobs WHERE source_id = 'src_docs' AND state IN ('queued','running')")
        .pluck()
        .get(),
    ).toBe(1);

    await waitForState(s, accepted.json.job_id, 'running');
    expect((await connector(s, 'conn_docs')).state).toBe('syncing');
    // another source is not blocked by this one
    const other = await ingest(s, 'conn_crm', 'src_crm');
    expect(other.status).toBe(202);

    release();
    expect((await waitForJob(s, accepted.json.job_id)).state).toBe('succeeded');
    await waitForJob(s, other.json.job_id);
    const again = await ingest(s, 'conn_docs', 'src_docs');
    expect(again.status).toBe(202);
    await waitForJob(s, again.json.job_id);
    const failedAudit = s.server.db
      .prepare(
        "SELECT target_id, status FROM audit WHERE action = 'connector.ingest' AND outcome = 'failed' AND status = 409",
      )
      .get();
    expect(failedAudit).toEqual({ target_id: 'conn_docs', status: 409 });
  });

  it('gives an auditor 403, creates no job, and audits the denied attempt', async () => {
    const before = snapshot(s, 'jobs');
    const res = await ingest(s, 'conn_docs', 'src_docs', 'auditor');
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('SVC-ADMIN-403');
    expect(snapshot(s, 'jobs')).toEqual(before);
    const denied = s.server.db
      .prepare(
        "SELECT actor_role, target_type, target_id, status FROM audit WHERE action = 'connector.ingest' AND outcome = 'denied'",
      )
      .all();
    expect(denied).toEqual([{ actor_role: 'auditor', target_type: 'connector', target_id: 'conn_docs', status: 403 }]);
  });
});

describe('connector configuration edge cases', () => {
  let d: TestServer;
  beforeAll(async () => {
    d = await startTestServer({
      config: (root) => {
        const base = fixtureConfig(root);
        const [docs, erp] = base.connectors;
        return {
          ...base,
          connectors: [
            { ...docs, enabled: false },
            {
              ...erp,
              id: 'conn_gone',
              sources: [{ id: 'src_gone', name: 'Gone', type: 'sqlite', path: join(root, 'absent.sqlite') }],
            },
            {
              ...docs,
              id: 'conn_mixed',
              sources: [
                docs.sources[0],
                { id: 'src_missing', name: 'Missing', type: 'directory', path: join(root, 'no-such-dir') },
              ],
            },
          ],
        };
      },
    });
  });
  afterAll(async () => {
    await d?.close();
  });

  it('shows a connector disabled in the config as disabled and refuses to ingest it (409)', async () => {
    expect((await connector(d, 'conn_docs')).state).toBe('disabled');
    const res = await ingest(d, 'conn_docs', 'src_docs');
    expect(res.status).toBe(409);
    expect(res.json.detail).toContain('disabled');
    expect(snapshot(d, 'jobs')).toEqual([]);
  });

  it('fails a source whose path does not exist with the reason', async () => {
    const res = await ingest(d, 'conn_gone', 'src_gone');
    const job = await waitForJob(d, res.json.job_id);
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/absent\.sqlite does not exist \(ENOENT\)/);
    expect((await connector(d, 'conn_gone')).state).toBe('error');
  });

  it('is degraded when one source failed and another succeeded', async () => {
    const ok = await waitForJob(d, (await ingest(d, 'conn_mixed', 'src_docs')).json.job_id);
    expect(ok).toMatchObject({ state: 'succeeded', items: 3 });
    expect((await connector(d, 'conn_mixed')).state).toBe('healthy');
    const bad = await waitForJob(d, (await ingest(d, 'conn_mixed', 'src_missing')).json.job_id);
    expect(bad.error).toMatch(/no-such-dir does not exist \(ENOENT\)/);
    const c = await connector(d, 'conn_mixed');
    expect(c.state).toBe('degraded');
    expect(c.last_sync).toMatchObject({ status: 'failed', job_id: bad.job_id });
    // the last success is still said, though a failure came after it
    expect(c.last_success).toEqual({ at: ok.finished_at, job_id: ok.job_id });
  });
});

describe('shutdown and restart', () => {
  it('a job interrupted by close ends failed; one left running by a crash is failed on the next start', async () => {
    const a = await startTestServer();
    jobHold.until = new Promise<void>(() => {}); // never released: only shutdown ends it
    const held = await ingest(a, 'conn_docs', 'src_docs');
    await waitForState(a, held.json.job_id, 'running');
    // a row a crashed process left behind
    a.server.db
      .prepare(
        "INSERT INTO jobs (job_id, connector_id, source_id, state, created_at, started_at) VALUES ('job_crashed', 'conn_erp', 'src_erp', 'running', '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z')",
      )
      .run();
    await a.close();

    const b = await startTestServer({ dataDir: a.dataDir });
    try {
      expect((await b.call('GET', `/jobs/${held.json.job_id}`)).json).toMatchObject({
        state: 'failed',
        error: 'interrupted by server shutdown',
      });
      expect((await b.call('GET', '/jobs/job_crashed')).json).toMatchObject({
        state: 'failed',
        error: 'interrupted by server restart',
        items: 0,
      });
      const erp = await connector(b, 'conn_erp');
      expect(erp.state).toBe('error');
      expect(erp.last_sync).toMatchObject({ status: 'failed', job_id: 'job_crashed' });
      // the source is free again
      jobHold.until = null;
      const res = await ingest(b, 'conn_erp', 'src_erp');
      expect(res.status).toBe(202);
      expect((await waitForJob(b, res.json.job_id)).items).toBe(7);
      expect((await connector(b, 'conn_erp')).state).toBe('healthy');
    } finally {
      await b.close();
    }
  });
});

describe('source readers', () => {
  const limits = (maxEntries = 1000) => ({ maxEntries, signal: new AbortController().signal });

  it('counts regular files and bytes, does not follow symlinks, and stops at the entry limit', async () => {
    const root = tempDir('aa-walk');
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    writeFileSync(join(root, 'one.txt'), '12345');
    writeFileSync(join(root, 'a', 'b', 'two.txt'), '123');
    symlinkSync(root, join(root, 'a', 'loop'));
    symlinkSync(join(root, 'one.txt'), join(root, 'alias.txt'));
    expect(await readDirectory(root, limits())).toEqual({ items: 2, bytes: 8, note: undefined });
    const partial = await readDirectory(root, limits(2));
    expect(partial.note).toBe('partial read: stopped after 2 entries (limit)');
    expect(partial.items).toBeLessThanOrEqual(2);
  });

  it('reports a file that is not a directory, or not a database, clearly', async () => {
    const root = tempDir('aa-walk');
    writeFileSync(join(root, 'plain.txt'), 'not sqlite at all, just text that is long enough to be a header'.repeat(4));
    await expect(readDirectory(join(root, 'plain.txt'), limits())).rejects.toThrow(/is not a directory/);
    await expect(readSqlite(join(root, 'plain.txt'), limits())).rejects.toThrow(/not a database/);
  });

  it('stops on abort', async () => {
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    const root = tempDir('aa-walk');
    writeFileSync(join(root, 'x'), 'x');
    await expect(readDirectory(root, { maxEntries: 10, signal: ac.signal })).rejects.toThrow('stop');
  });
});
