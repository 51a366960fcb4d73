import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renameSync } from 'node:fs';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { Job, JobList, type Page } from '../../src/contract/index.js';

let s: TestServer;
/** the jobs this suite ran, oldest first */
const ran: Job[] = [];

async function runJob(connector_id: string, source_id: string): Promise<Job> {
  const res = await s.call('POST', '/connectors', { body: { connector_id, source_id } });
  expect(res.status).toBe(202);
  return until(
    `job ${res.json.job_id} to end`,
    async () => {
      const job = (await s.call('GET', `/jobs/${res.json.job_id}`)).json;
      return job.state === 'succeeded' || job.state === 'failed' ? Job.parse(job) : null;
    },
    5000,
  );
}

const list = async (query: string) => {
  const res = await s.call('GET', `/jobs${query}`, { role: 'auditor' });
  expect(res.status, res.text).toBe(200);
  return JobList.parse(res.json);
};
const ids = (jobs: Job[]) => jobs.map((j) => j.job_id);
const newestFirst = (jobs: Job[]) => [...jobs].reverse();

beforeAll(async () => {
  s = await startTestServer();
  for (const [c, src] of [
    ['conn_docs', 'src_docs'],
    ['conn_crm', 'src_crm'],
    ['conn_erp', 'src_erp'],
    ['conn_docs', 'src_docs'],
    ['conn_crm', 'src_crm'],
  ]) {
    ran.push(await runJob(c, src));
  }
});
afterAll(async () => {
  await s?.close();
});

describe('connector last_sync.error', () => {
  it("carries the failed job's reason, and null once a sync succeeds", async () => {
    const connector = async (id: string) =>
      (await s.call('GET', '/connectors')).json.data.find((c: { id: string }) => c.id === id);
    const crm = await connector('conn_crm');
    expect(crm.last_sync).toEqual({
      at: ran[4].finished_at,
      status: 'failed',
      job_id: ran[4].job_id,
      items: 0,
      error: 'no crm driver is installed on this host to reach https://crm.example.invalid',
    });
    expect((await connector('conn_docs')).last_sync).toMatchObject({
      status: 'succeeded',
      job_id: ran[3].job_id,
      error: null,
    });

    // a source that fails, then succeeds again: the error goes with the failure
    const docsDir = s.config.connectors[0].sources[0].path!;
    const moved = `${docsDir}.away`;
    renameSync(docsDir, moved);
    try {
      const failed = await runJob('conn_docs', 'src_docs');
      expect((await connector('conn_docs')).last_sync).toMatchObject({
        status: 'failed',
        job_id: failed.job_id,
        error: failed.error,
      });
      expect(failed.error).toMatch(/does not exist \(ENOENT\)/);
      ran.push(failed);
    } finally {
      renameSync(moved, docsDir);
    }
    const ok = await runJob('conn_docs', 'src_docs');
    ran.push(ok);
    expect((await connector('conn_docs')).last_sync).toMatchObject({
      status: 'succeeded',
      job_id: ok.job_id,
      error: null,
    });
  });
});

describe('GET /jobs', () => {
  it('lists every job newest first, in the shape GET /jobs/{id} gives', async () => {
    const page = await list('');
    expect(page.has_more).toBe(false);
    expect(page.next_cursor).toBeNull();
    expect(page.data).toEqual(newestFirst(ran));
  });

  it('pages with limit and after, without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page<Job> = await list(`?limit=2${cursor ? `&after=${cursor}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...ids(page.data));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(ids(newestFirst(ran)));
    expect(pages).toBe(Math.ceil(ran.length / 2));
  });

  it('a job started after a page was read comes first, and does not disturb the pages after it', async () => {
    const first = await list('?limit=3');
    const newer = await runJob('conn_erp', 'src_erp');
    ran.push(newer);
    const rest = await list(`?limit=50&after=${first.next_cursor}`);
    expect([...ids(first.data), ...ids(rest.data)]).toEqual(ids(newestFirst(ran)).slice(1));
    expect(ids((await list('?limit=1')).data)).toEqual([newer.job_id]);
  });

  it('filters by connector_id, source_id and state, alone and together, and pages a filter', async () => {
    const expectOf = (keep: (j: Job) => boolean) => ids(newestFirst(ran.filter(keep)));
    expect(ids((await list('?connector_id=conn_crm')).data)).toEqual(expectOf((j) => j.connector_id === 'conn_crm'));
    expect(ids((await list('?source_id=src_docs')).data)).toEqual(expectOf((j) => j.source_id === 'src_docs'));
    const failed = await list('?state=failed');
    expect(ids(failed.data)).toEqual(expectOf((j) => j.state === 'failed'));
    expect(failed.data.length).toBe(3);
    expect(failed.data.every((j) => j.error)).toBe(true);
    expect(ids((await list('?state=succeeded&connector_id=conn_docs')).data)).toEqual(
      expectOf((j) => j.state === 'succeeded' && j.connector_id === 'conn_docs'),
    );
    expect((await list('?state=running')).data).toEqual([]);
    // a connector no longer (or never) configured has no jobs to show, not a 404
    expect((await list('?connector_id=conn_gone')).data).toEqual([]);

    const one = await list('?state=failed&limit=1');
    expect(one.has_more).toBe(true);
    const next = await list(`?state=failed&limit=1&after=${one.next_cursor}`);
    expect(ids(next.data)).toEqual(ids(failed.data).slice(1, 2));
  });

  it('answers 400 with invalid_params for bad filter values, limits and cursors', async () => {
    for (const [query, param] of [
      ['?state=broken', 'state'],
      ['?state=', 'state'],
      ['?connector_id=', 'connector_id'],
      [`?source_id=${'s'.repeat(101)}`, 'source_id'],
      ['?limit=0', 'limit'],
      ['?limit=501', 'limit'],
      ['?after=not-a-cursor', 'after'],
      ['?job_state=failed', 'job_state'],
    ]) {
      const res = await s.call('GET', `/jobs${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.code).toBe('SVC-ADMIN-400');
      expect(
        res.json.invalid_params.map((p: { name: string }) => p.name),
        query,
      ).toContain(param);
    }
  });

  it('reads a filtered page through an index, without sorting', () => {
    for (const filter of ['connector_id', 'source_id', 'state']) {
      const plan = (
        s.server.db
          .prepare(`EXPLAIN QUERY PLAN SELECT * FROM jobs WHERE ${filter} = 'x' AND seq < 10 ORDER BY seq DESC LIMIT 3`)
          .all() as { detail: string }[]
      )
        .map((r) => r.detail)
        .join('; ');
      expect(plan, filter).toMatch(/USING (COVERING )?INDEX jobs_/);
      expect(plan, filter).not.toContain('TEMP B-TREE');
    }
  });
});
