import { join } from 'node:path';
import pino from 'pino';
import { until } from '../helpers/until.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import Database from '../../src/server/db/sqlite-driver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { issueToken, start } from '../helpers/child-server.js';
import { startTraffic } from '../../src/server/demo/traffic.js';
import { readerOverride } from '../../src/server/ingest/read-in-worker.js';
import { BackgroundTasks, describeError } from '../../src/server/background.js';

/**
 * Issue 37 §7: no background work of the server (ingestion, the demo's traffic, the refused-request
 * counts) ends the process, whatever it meets. A fault no real peer can produce is put in the
 * test's own database (a trigger that refuses a write, as a full disk or a locked table would):
 * the server stays up, /deployment names the failing task in its `background-tasks` component, and
 * once the fault is gone the task is retried and the component is healthy again.
 */

/** Retries a test can wait for: 20 ms, doubled per failure up to 200 ms. */
const FAST = { firstMs: 20, maxMs: 200 };

/** Every uncaught exception and unhandled rejection in this process, where the server runs. */
const escaped: unknown[] = [];
const onEscape = (err: unknown) => void escaped.push(err);
beforeAll(() => {
  process.on('uncaughtException', onEscape);
  process.on('unhandledRejection', onEscape);
});
afterAll(() => {
  process.off('uncaughtException', onEscape);
  process.off('unhandledRejection', onEscape);
});
afterEach(() => {
  readerOverride.code = null;
  expect(escaped).toEqual([]);
});

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

interface Component {
  name: string;
  status: string;
  message: string | null;
}
async function backgroundComponent(call: TestServer['call']): Promise<Component | undefined> {
  const d = await call('GET', '/deployment', { role: 'auditor' });
  expect(d.status).toBe(200);
  return (d.json.components as Component[]).find((c) => c.name === 'background-tasks');
}
const failing = (task: string, s: TestServer) => async () => {
  const c = await backgroundComponent(s.call);
  return c?.status === 'degraded' && c.message?.includes(`${task} failing:`) ? c : undefined;
};
const healthy = (s: TestServer) => async () => (await backgroundComponent(s.call))?.status === 'healthy';

/** A server whose log lines the test reads. */
async function serverWithLog(opts: Parameters<typeof startTestServer>[0] = {}) {
  const lines: Record<string, unknown>[] = [];
  const s = await startTestServer({
    background: FAST,
    logger: pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) }),
    ...opts,
  });
  servers.push(s);
  return { s, lines };
}

const jobOf = async (s: TestServer, id: string) => (await s.call('GET', `/jobs/${id}`)).json;

describe('ingestion', () => {
  it('a job whose end cannot be recorded stays active, is shown on /deployment, and is recorded once it can be', async () => {
    const { s, lines } = await serverWithLog();
    const db = s.server.db;
    db.exec(`CREATE TRIGGER test_fault_jobs BEFORE UPDATE OF state ON jobs
      WHEN NEW.state IN ('succeeded', 'failed')
      BEGIN SELECT RAISE(ABORT, 'injected fault: job ends cannot be written'); END`);

    const res = await s.call('POST', '/connectors', { body: { connector_id: 'conn_docs', source_id: 'src_docs' } });
    expect(res.status).toBe(202);
    const jobId = res.json.job_id as string;
    const c = await until('the ingestion task failing on /deployment', failing('ingestion-jobs', s));
    expect(c.message).toContain(
      `ingestion-jobs failing: the end of job ${jobId} cannot be recorded: SQLITE_CONSTRAINT_TRIGGER: injected fault: job ends cannot be written`,
    );
    expect(c.message).toMatch(/\(\d+ failures? in a row since \S+; last at \S+, tried again in \d+ ms\)/);
    expect((await s.call('GET', '/deployment')).json.status).not.toBe('healthy');
    // tried again and again meanwhile, each time logged as one line
    await until('a few tries', () => lines.filter((l) => l.task === 'ingestion-jobs').length >= 3);
    expect(lines.find((l) => l.task === 'ingestion-jobs')).toMatchObject({
      level: 40,
      msg: 'background task failed',
      error: expect.stringContaining('injected fault'),
      retry: expect.stringMatching(/^tried again in \d+ ms$/),
    });
    // the job is not lost: it is still the source's active one
    expect((await jobOf(s, jobId)).state).toBe('running');
    expect(
      (await s.call('POST', '/connectors', { body: { connector_id: 'conn_docs', source_id: 'src_docs' } })).status,
    ).toBe(409);

    db.exec('DROP TRIGGER test_fault_jobs');
    await until('the job recorded', async () => (await jobOf(s, jobId)).state === 'succeeded');
    expect(await jobOf(s, jobId)).toMatchObject({ state: 'succeeded', items: 3, error: null });
    expect(await until('the component healthy again', healthy(s))).toBe(true);
    expect(await backgroundComponent(s.call)).toMatchObject({ status: 'healthy', message: 'none failing' });
    expect(lines).toContainEqual(expect.objectContaining({ task: 'ingestion-jobs', msg: 'background task recovered' }));
  });

  it('a reader thread that crashes or exits ends its job failed, and the next job runs', async () => {
    const { s } = await serverWithLog();
    const ingest = async () => {
      const res = await s.call('POST', '/connectors', { body: { connector_id: 'conn_docs', source_id: 'src_docs' } });
      expect(res.status).toBe(202);
      const id = res.json.job_id as string;
      await until('the job ended', async () => ['succeeded', 'failed'].includes((await jobOf(s, id)).state));
      return jobOf(s, id);
    };

    readerOverride.code = "throw new Error('reader crashed')";
    expect(await ingest()).toMatchObject({ state: 'failed', error: 'unexpected error: reader crashed' });
    readerOverride.code = 'process.exit(7)';
    expect(await ingest()).toMatchObject({
      state: 'failed',
      error: 'unexpected error: the source reader stopped (exit code 7) without an answer',
    });
    // a failed sync is the connector's state, shown by the ingestion component; no task is failing
    const d = (await s.call('GET', '/deployment')).json;
    expect(d.components.find((c: Component) => c.name === 'ingestion')).toMatchObject({
      status: 'degraded',
      message: 'last sync failed for conn_docs',
    });
    expect(await backgroundComponent(s.call)).toMatchObject({ status: 'healthy' });

    readerOverride.code = null;
    expect(await ingest()).toMatchObject({ state: 'succeeded', items: 3 });
  });
});

describe("the demo's traffic", () => {
  it('a tick that cannot write is shown on /deployment, leaves the runs whole, and the traffic resumes', async () => {
    const { s, lines } = await serverWithLog();
    const db = s.server.db;
    const since = Date.now();
    const t = startTraffic(s.server.app, db, s.config, { intervalMs: 20, firstDelayMs: 0 });
    try {
      await until('runs started', () => t.stats.runsStarted > 1);
      db.exec(`CREATE TRIGGER test_fault_journal BEFORE INSERT ON journal
        BEGIN SELECT RAISE(ABORT, 'injected fault: the journal is read only'); END`);
      const c = await until('the demo-traffic task failing', failing('demo-traffic', s));
      expect(c.message).toContain(
        'demo-traffic failing: SQLITE_CONSTRAINT_TRIGGER: injected fault: the journal is read only',
      );
      await until('a few failed ticks', () => lines.filter((l) => l.task === 'demo-traffic').length >= 3);

      db.exec('DROP TRIGGER test_fault_journal');
      const started = t.stats.runsStarted;
      await until('the component healthy again', healthy(s));
      await until('new runs', () => t.stats.runsStarted > started + 1);
    } finally {
      await t.stop();
    }
    expect(lines).toContainEqual(expect.objectContaining({ task: 'demo-traffic', msg: 'background task recovered' }));
    // no step was lost with a tick that failed: every run has its steps from 0 on, none left running
    const runs = db
      .prepare(
        'SELECT run_id, group_concat(step) AS steps FROM (SELECT run_id, step FROM journal WHERE started_ms >= ? ORDER BY run_id, step) GROUP BY run_id',
      )
      .all(since) as { run_id: string; steps: string }[];
    expect(runs.length).toBeGreaterThan(2);
    for (const r of runs)
      expect(r.steps, r.run_id).toBe(Array.from({ length: r.steps.split(',').length }, (_, i) => i).join(','));
    expect(db.prepare("SELECT count(*) FROM journal WHERE status = 'running'").pluck().get()).toBe(0);
  });
});

describe('the refused-request counts', () => {
  it("a minute that cannot be audited is shown on /deployment until a minute's entries are written", async () => {
    const MINUTE = 60_000;
    let clock = Date.now();
    const { s } = await serverWithLog({ now: () => clock });
    const db = s.server.db;
    db.exec(`CREATE TRIGGER test_fault_refused BEFORE INSERT ON audit WHEN NEW.action = 'auth.refused'
      BEGIN SELECT RAISE(ABORT, 'injected fault: no room for auth.refused'); END`);
    const refused = async () =>
      expect((await s.call('GET', '/session', { token: 'aat_not-a-token' })).status).toBe(401);

    await refused();
    clock += MINUTE;
    await refused(); // the minute before is written now, and cannot be
    const c = await until('the auth-refused-audit task failing', failing('auth-refused-audit', s));
    expect(c.message).toContain('auth-refused-audit failing: SQLITE_CONSTRAINT_TRIGGER: injected fault');
    expect(c.message).toContain("not retried: that minute's counts are in the server log");
    expect(c.message).not.toContain('aat_not-a-token');

    db.exec('DROP TRIGGER test_fault_refused');
    clock += MINUTE;
    await refused();
    expect(await until('the component healthy again', healthy(s))).toBe(true);
    expect(db.prepare("SELECT count(*) FROM audit WHERE action = 'auth.refused'").pluck().get()).toBe(1);
  });
});

describe('appliance-admin serve', () => {
  it('stays up while a background task fails, recovers once the fault is gone, and exits 0 on SIGTERM', async () => {
    const root = tempDir('aa-bg-serve');
    const dataDir = join(root, 'data');
    const child = await start(dataDir, { config: fixtureConfig(root) });
    try {
      const token = await issueToken(dataDir, 'it_admin');
      const call: TestServer['call'] = async (method, path, o = {}) => {
        const res = await fetch(`${child.url}/v1/admin${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(o.body ? { 'content-type': 'application/json' } : {}) },
          body: o.body ? JSON.stringify(o.body) : undefined,
        });
        const text = await res.text();
        return { status: res.status, headers: {}, text, json: text ? JSON.parse(text) : undefined };
      };
      let exited = false;
      void child.exited.then(() => (exited = true));
      // the fault, from another connection to the server's database
      const db = new Database(join(dataDir, 'appliance-admin.db'));
      let jobId: string;
      try {
        db.exec(`CREATE TRIGGER test_fault_jobs BEFORE UPDATE OF state ON jobs
          WHEN NEW.state IN ('succeeded', 'failed')
          BEGIN SELECT RAISE(ABORT, 'injected fault: job ends cannot be written'); END`);
        const res = await call('POST', '/connectors', { body: { connector_id: 'conn_docs', source_id: 'src_docs' } });
        expect(res.status).toBe(202);
        jobId = res.json.job_id;
        await until('the ingestion task failing', async () => {
          const c = await backgroundComponent(call);
          return c?.status === 'degraded' && c.message?.includes(`ingestion-jobs failing: the end of job ${jobId}`);
        });
        // tried again after 1 s, then 2 s …: still up
        await until(
          'a second failure logged',
          () => child.stderr().split('"task":"ingestion-jobs"').length > 2,
          15_000,
        );
        expect(exited).toBe(false);
        expect(child.stderr()).not.toContain(token);
        db.exec('DROP TRIGGER test_fault_jobs');
      } finally {
        db.close();
      }
      await until(
        'the job recorded',
        async () => (await call('GET', `/jobs/${jobId}`)).json.state === 'succeeded',
        20_000,
      );
      await until('healthy again', async () => (await backgroundComponent(call))?.status === 'healthy');
      expect(await child.stop()).toBe(0);
    } finally {
      await child.kill();
    }
  }, 60_000);
});

describe('the helper (src/server/background.ts)', () => {
  it('says what went wrong in one short line, without a URL query, user info or credential', () => {
    const sqlite = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    expect(describeError(new Error('the end of job job_1 cannot be recorded', { cause: sqlite }))).toBe(
      'the end of job job_1 cannot be recorded: SQLITE_FULL: database or disk is full',
    );
    const leaky = new Error(
      'fetch https://admin:hunter2@idp.example/keys?sig=abc failed for Bearer aat_secret123 with agk_key456 and eyJa.eyJb.c\nsecond line',
    );
    const said = describeError(leaky);
    for (const secret of ['hunter2', 'sig=abc', 'aat_secret123', 'agk_key456', 'eyJa', 'second line'])
      expect(said).not.toContain(secret);
    expect(said).toContain('https://idp.example/keys?sig=REDACTED');
    expect(describeError(new Error('x'.repeat(500)))).toHaveLength(160);
    expect(describeError('a string')).toBe('a string');
    expect(describeError(undefined)).toBe('unknown error');
  });

  it('runs a task again after a failure, waiting longer per failure in a row, and forgets it once it succeeds', async () => {
    const lines: Record<string, unknown>[] = [];
    const tasks = new BackgroundTasks(
      pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) }),
      { firstMs: 10, maxMs: 40 },
    );
    expect([1, 2, 3, 4].map((n) => tasks.backoff(n))).toEqual([10, 20, 40, 40]);
    let fail = 3;
    const done = tasks.untilDone('t', () => {
      if (fail-- > 0) throw new Error('not yet');
    });
    expect(tasks.failures()).toMatchObject([
      { task: 't', error: 'not yet', failures: 1, retry: 'tried again in 10 ms' },
    ]);
    await until('done', () => !done.active);
    expect(tasks.failures()).toEqual([]);
    expect(lines.map((l) => [l.msg, l.failures])).toEqual([
      ['background task failed', 1],
      ['background task failed', 2],
      ['background task failed', 3],
      ['background task recovered', 3],
    ]);

    let ticks = 0;
    // the clock is the test's: that a stopped loop never ticks again is asserted past many of its periods
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const loop = tasks.repeat('r', { everyMs: 5, firstMs: 0 }, async () => {
        ticks++;
        throw new Error('always');
      });
      while (ticks < 3) await vi.advanceTimersByTimeAsync(5);
      await loop.stop();
      const after = ticks;
      expect(tasks.failures()).toMatchObject([{ task: 'r', failures: after }]);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(ticks).toBe(after);
    } finally {
      vi.useRealTimers();
    }
    expect(tasks.run('r', () => 42, 'now')).toBe(42);
    expect(tasks.run('x', () => JSON.parse('{'), 'later')).toBeUndefined();
    expect(tasks.failures().map((f) => f.task)).toEqual(['x']);
  });
});
