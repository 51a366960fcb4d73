import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { startHostile, stall, type HostileServer } from '../helpers/hostile-server.js';
import { until } from '../helpers/until.js';
import { jobHold } from '../../src/server/ingest/runner.js';
import { followPolicy } from '../../screens/connectors.js';

/**
 * Following an ingestion through a stall: the real server runs the job (held in flight by the
 * runner's test seam); between it and the dashboard a loopback hop stops answering the job's
 * reads for a while, as a stopped (SIGSTOP) appliance does. Once the 202 came the ingestion was
 * started: losing sight of it is never reported as its failure.
 */
const suite = setupScreenSuite();
let hop: HostileServer;
let release: () => void = () => {};
const defaultPolicy = { ...followPolicy };

beforeAll(async () => {
  hop = await startHostile({ upstream: suite.server.url });
});
afterAll(async () => {
  await hop?.close();
});
afterEach(() => {
  release();
  jobHold.until = null;
  hop.clear();
  Object.assign(followPolicy, defaultPolicy);
});

const lastJob = () =>
  suite.db.prepare('SELECT job_id, state FROM jobs ORDER BY seq DESC LIMIT 1').get() as
    { job_id: string; state: string } | undefined;
const flat = (f: string) => f.replace(/[│\s]+/g, ' ');

/** Starts an ingestion of Team share with the job held running; stalls its reads; gives the job id. */
async function startStalled() {
  jobHold.until = new Promise<void>((r) => {
    release = r;
  });
  const before = lastJob()?.job_id;
  const d = suite.render({ url: hop.url, token: suite.server.tokens.it_admin, screen: 'connectors', timeoutMs: 400 });
  await d.waitForText('Team share');
  await selectRow(d, 'Team share');
  await d.press('i');
  await d.waitForText('Ingest from Team share');
  await d.press('enter');
  await d.waitForText(/RUNNING\s+Team share/);
  const job = lastJob()!;
  expect(job.job_id).not.toBe(before);
  hop.set(`/jobs/${job.job_id}`, stall());
  return { d, jobId: job.job_id };
}

describe('connectors: following an ingestion through a stall', () => {
  it('keeps following through a stall and reports the job as it ends', async () => {
    const { d, jobId } = await startStalled();
    const retrying = await d.waitForText("cannot read the job's state", 5000);
    expect(flat(retrying)).toContain('the appliance did not answer in time');
    expect(flat(retrying)).toMatch(/retrying for \d+ s more; the job runs on the appliance meanwhile/);
    const reads = hop.count(`GET /jobs/${jobId}`);
    await until('a few more failed reads', () => hop.count(`GET /jobs/${jobId}`) >= reads + 2);
    hop.set(`/jobs/${jobId}`, null);
    release();
    const done = await d.waitForText('Ingestion finished', 10_000);
    expect(done).toContain(jobId);
    expect(done).toMatch(/items\s+3/);
    expect(d.allFrames()).not.toContain('ingest failed');
    expect(lastJob()).toMatchObject({ job_id: jobId, state: 'succeeded' });
  });

  it('when it cannot follow for long: the job was started, it says which, and that following failed', async () => {
    followPolicy.patienceMs = 1500;
    const { d, jobId } = await startStalled();
    const f = flat(await d.waitForText('could not follow it', 10_000));
    expect(f).toContain('▲ NOTE Ingestion started; could not follow it');
    expect(f).toContain(`Started job ${jobId}; could not follow it: the appliance did not answer in time`);
    expect(f).toContain('Last seen running.');
    expect(f).toContain('The connectors screen shows its state');
    expect(f).toContain('action connector.ingest'); // the start's audit entry
    expect(d.allFrames()).not.toContain('ingest failed');
    expect(d.allFrames()).not.toContain('✕ ERROR');
  });
});
