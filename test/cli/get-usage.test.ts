import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** `appliance-admin get usage`: the usage screen is a list, so it prints as one, refusals and names included. */
let s: TestServer;
let token: string;
const conn = () => ['--url', s.url, '--token-file', token];

beforeAll(async () => {
  await ensureBuilt();
  s = await startTestServer();
  token = writeTokenFile(s.tokens.auditor);
  const key = (await s.call('POST', '/gateway/keys', { body: { name: 'old-client' } })).json;
  for (const w of ['chat', 'summarize-v0', 'summarize-v0'])
    await s.call('POST', `/v1/gateway/${w}`, { role: null, token: key.secret, body: {} });
});
afterAll(async () => {
  await s?.close();
});

describe('appliance-admin get usage', () => {
  it("prints the last 24 hours as the screen's table: each key's requests and refusals", async () => {
    const r = await runCli(['get', 'usage', ...conn()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Last 24 hours by hour · .* · 1 key · 1 requests · 2 rejected\n/);
    expect(r.stdout).toMatch(/Key\s+Requests\s+Rejected\s+In tok\s+Out tok\s+Requests \(× refused\), oldest → now/);
    expect(r.stdout).toMatch(/old-client\s+1\s+2\s+/);
  });

  it('--json prints the answer, with the unknown workload names asked for', async () => {
    const r = await runCli(['get', 'usage', '--json', ...conn()]);
    expect(r.code, r.stderr).toBe(0);
    const usage = JSON.parse(r.stdout) as {
      bucket: string;
      data: { rejected: number; rejected_workloads: { workload: string; rejected: number }[] }[];
    };
    expect(usage.bucket).toBe('hour');
    expect(usage.data[0].rejected).toBe(2);
    expect(usage.data[0].rejected_workloads).toEqual([{ workload: 'summarize-v0', rejected: 2 }]);
  });

  it('--range hour gives the last hour in minute buckets, as the screen’s H; a range it has not, or a screen without one, is bad usage', async () => {
    const r = await runCli(['get', 'usage', '--range', 'hour', '--json', ...conn()]);
    expect(r.code, r.stderr).toBe(0);
    const usage = JSON.parse(r.stdout) as { bucket: string; data: { buckets: { rejected: number }[] }[] };
    expect(usage.bucket).toBe('minute');
    const buckets = usage.data[0].buckets;
    expect(buckets.length).toBeGreaterThanOrEqual(60);
    expect(buckets.reduce((n, b) => n + b.rejected, 0)).toBe(2);
    const table = await runCli(['get', 'usage', '--range', 'week', ...conn()]);
    expect(table.stdout).toMatch(/^Last 7 days by 4 h · /);
    const bad = await runCli(['get', 'usage', '--range', 'year', ...conn()]);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringMatching(/--range must be one of hour, day, week, got year/),
    ]);
    const none = await runCli(['get', 'keys', '--range', 'day', ...conn()]);
    expect([none.code, none.stderr]).toEqual([2, expect.stringMatching(/the keys screen has no time range/)]);
    // the overview's window: the key's rejections said over 24 hours
    const board = await runCli(['get', 'overview', '--range', 'day', '--json', ...conn()]);
    const lines = JSON.parse(board.stdout) as { key: string; window: string }[];
    expect(lines.find((l) => l.key.startsWith('key-rejections:'))?.window).toBe('last 24 h');
  });
});
