import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from '../../src/server/db/sqlite-driver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { writeSqliteSource } from '../helpers/sqlite-source.js';
import { until } from '../helpers/until.js';
import { issueToken, start, type ChildServer } from '../helpers/child-server.js';
import { readSqlite } from '../../src/server/ingest/sources.js';
import type { Job } from '../../src/contract/index.js';
import type { ServerConfig } from '../../src/server/config.js';

/** The ingestion limit (src/server/ingest/runner.ts): a source is counted up to this many rows. */
const MAX_ENTRIES = 100_000;
const ROWS = 300_000;

const withSource = (root: string, file: string): ServerConfig => {
  const base = fixtureConfig(root);
  return {
    ...base,
    connectors: [
      ...base.connectors,
      {
        id: 'conn_big',
        name: 'Big database',
        kind: 'relational-database',
        enabled: true,
        rbac_labels: [],
        sources: [{ id: 'src_big', name: 'Orders', type: 'sqlite', path: file }],
      },
    ],
  };
};

/** GET the job until it ends, timing each GET: the admin API answering while the job runs. */
async function followJob(
  get: (path: string) => Promise<{ status: number; json: Job }>,
  jobId: string,
  timeoutMs = 20_000,
) {
  const ms: number[] = [];
  for (const deadline = Date.now() + timeoutMs; ;) {
    const t0 = performance.now();
    const res = await get(`/v1/admin/jobs/${jobId}`);
    ms.push(performance.now() - t0);
    expect(res.status).toBe(200);
    if (res.json.state === 'succeeded' || res.json.state === 'failed') return { job: res.json, ms };
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${res.json.state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Until the job's reader (a worker thread of this process) has the source open besides the test's
 * writer: its next step is the read, which waits for the writer's lock.
 */
const readerOpened = (file: string) => {
  const real = realpathSync(file);
  return until('the reader to open the source', () => {
    const fds = readdirSync('/proc/self/fd');
    return fds.filter((fd) => readlinkOr(`/proc/self/fd/${fd}`) === real).length >= 2;
  });
};
const readlinkOr = (link: string) => {
  try {
    return readlinkSync(link);
  } catch {
    return null; // closed meanwhile (the directory's own descriptor among them)
  }
};

describe('ingestion off the event loop', () => {
  let s: TestServer;
  let file: string;
  beforeAll(async () => {
    const root = tempDir('aa-ingest');
    file = join(root, 'orders.sqlite');
    writeSqliteSource(file, ROWS);
    s = await startTestServer({ config: (r) => withSource(r, file) });
  });
  afterAll(async () => {
    await s?.close();
  });

  const get = (path: string) => s.call('GET', path);

  it(`counts a ${ROWS.toLocaleString('en')}-row source while admin GETs keep answering`, async () => {
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const res = await s.call('POST', '/connectors', { body: { connector_id: 'conn_big', source_id: 'src_big' } });
    expect(res.status).toBe(202);
    const { job, ms } = await followJob(get, res.json.job_id);
    delay.disable();
    expect(job).toMatchObject({
      state: 'succeeded',
      items: MAX_ENTRIES,
      error: `partial read: stopped after ${MAX_ENTRIES} rows (limit)`,
    });
    // the server runs in this process: its longest stall is this loop's; generous for a shared CPU
    console.log(
      `during the job: ${ms.length} GETs, slowest ${Math.max(...ms).toFixed(1)} ms; event loop delay max ${(delay.max / 1e6).toFixed(1)} ms`,
    );
    expect(Math.max(...ms)).toBeLessThan(1000);
  });

  it('keeps answering while the source is locked and its reader waits for the lock, then counts it', async () => {
    // another process writing the source holds its lock: SQLite's busy wait (5 s) is one blocking call
    const writer = new Database(file);
    writer.exec('BEGIN EXCLUSIVE');
    let job: Job;
    try {
      const res = await s.call('POST', '/connectors', { body: { connector_id: 'conn_big', source_id: 'src_big' } });
      expect(res.status).toBe(202);
      await readerOpened(file); // and so waits for the lock
      const t0 = performance.now();
      const during = await get(`/v1/admin/jobs/${res.json.job_id}`);
      expect(performance.now() - t0).toBeLessThan(1000);
      expect(during.json.state).toBe('running');
      writer.exec('ROLLBACK');
      ({ job } = await followJob(get, res.json.job_id));
    } finally {
      writer.close();
    }
    expect(job).toMatchObject({ state: 'succeeded', items: MAX_ENTRIES });
  });

  it('shuts down during a read: the job ends failed as interrupted, the worker is ended', async () => {
    const other = await startTestServer({ config: (r) => withSource(r, file) });
    const writer = new Database(file);
    writer.exec('BEGIN EXCLUSIVE'); // holds the reader in its busy wait
    try {
      const res = await other.call('POST', '/connectors', { body: { connector_id: 'conn_big', source_id: 'src_big' } });
      await readerOpened(file);
      const t0 = performance.now();
      await other.close();
      expect(performance.now() - t0).toBeLessThan(3000);
      const stored = new Database(other.dataDir + '/appliance-admin.db', { readonly: true });
      try {
        expect(stored.prepare('SELECT state, error FROM jobs WHERE job_id = ?').get(res.json.job_id)).toEqual({
          state: 'failed',
          error: 'interrupted by server shutdown',
        });
      } finally {
        stored.close();
      }
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });
});

describe('the row limit', () => {
  it('tells a source that fills the limit exactly from one that overflows it', async () => {
    const file = join(tempDir('aa-limit'), 'orders.sqlite');
    writeSqliteSource(file, 50);
    const limits = (maxEntries: number) => ({ maxEntries, signal: new AbortController().signal });
    expect(await readSqlite(file, limits(50))).toEqual({ items: 50 });
    expect(await readSqlite(file, limits(49))).toEqual({
      items: 49,
      note: 'partial read: stopped after 49 rows (limit)',
    });
  });
});

describe('ingestion from the built CLI', () => {
  let server: ChildServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("reads a source in the bundle's worker (dist/ingest-worker.js) and records its count", async () => {
    const root = tempDir('aa-ingest-cli');
    const file = join(root, 'orders.sqlite');
    writeSqliteSource(file, 1234);
    const dataDir = join(root, 'data');
    server = await start(dataDir, { config: withSource(root, file) });
    const token = await issueToken(dataDir, 'it_admin', 'ingest-cli');
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(server!.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });

      return { status: res.status, json: (await res.json()) as any };
    };
    const res = await call('POST', '/v1/admin/connectors', { connector_id: 'conn_big', source_id: 'src_big' });
    expect(res.status).toBe(202);
    const { job } = await followJob((path) => call('GET', path), res.json.job_id);
    expect(job).toMatchObject({ state: 'succeeded', items: 1234, error: null });
  });
});
