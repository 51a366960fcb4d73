import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { amountOfNanos, costNanos } from '../../src/contract/index.js';

/**
 * `appliance-admin get usage`: the usage screen is a list, so it prints as one, refusals, names and
 * cost included; `get spend`: the cost by model, workload or key.
 */
const LLAMA = { input_per_million: 3, output_per_million: 15 };
let s: TestServer;
let token: string;
const conn = () => ['--url', s.url, '--token-file', token];

beforeAll(async () => {
  await ensureBuilt();
  // chat's model (llama) is priced, summarize's (mistral) is not
  s = await startTestServer({
    config: (root) => fixtureConfig(root, { pricing: { currency: 'EUR', models: { 'llama-3.1-8b': LLAMA } } }),
  });
  token = writeTokenFile(s.tokens.auditor);
  const key = (await s.call('POST', '/gateway/keys', { body: { name: 'old-client' } })).json;
  for (const w of ['chat', 'summarize-v0', 'summarize-v0'])
    await s.call('POST', `/v1/gateway/${w}`, { role: null, token: key.secret, body: {} });
  const other = (await s.call('POST', '/gateway/keys', { body: { name: 'summarizer' } })).json;
  await s.call('POST', '/v1/gateway/summarize', { role: null, token: other.secret, body: {} });
});
afterAll(async () => {
  await s?.close();
});

describe('appliance-admin get usage', () => {
  it("prints the last 24 hours as the screen's table: each key's requests and refusals", async () => {
    const r = await runCli(['get', 'usage', ...conn()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Last 24 hours by hour · 2 keys · 2 requests · 2 rejected · <?0\.\d\d EUR · \d{4}-.* UTC\n/,
    );
    expect(r.stdout).toMatch(
      /Key\s+Requests\s+Rejected\s+Cost\s+In tok\s+Out tok\s+Requests \(× refused\), oldest → now/,
    );
    expect(r.stdout).toMatch(/old-client\s+1\s+2\s+<?0\.\d\d EUR\s/);
    expect(r.stdout).toMatch(/summarizer\s+1\s+0\s+0\.00 EUR \+1 unpriced\s/);
  });

  it('--json prints the answer, with the unknown workload names asked for', async () => {
    const r = await runCli(['get', 'usage', '--json', ...conn()]);
    expect(r.code, r.stderr).toBe(0);
    const usage = JSON.parse(r.stdout) as {
      bucket: string;
      currency: string;
      data: {
        key_id: string;
        rejected: number;
        cost: number;
        unpriced_requests: number;
        rejected_workloads: { workload: string; rejected: number }[];
      }[];
    };
    expect(usage.bucket).toBe('hour');
    expect(usage.currency).toBe('EUR');
    const old = usage.data.find((u) => u.rejected > 0)!;
    expect(old.rejected).toBe(2);
    expect(old.rejected_workloads).toEqual([{ workload: 'summarize-v0', rejected: 2 }]);
    // an empty body: 2 input tokens (the body's bytes / 4), 256 output tokens (the default max)
    const spent = s.server.db
      .prepare("SELECT input_tokens, output_tokens FROM usage_spend WHERE grain = 'day' AND key_id = ?")
      .get(old.key_id) as { input_tokens: number; output_tokens: number };
    expect(old).toMatchObject({ cost: amountOfNanos(costNanos(LLAMA, spent)), unpriced_requests: 0 });
    expect(usage.data.find((u) => u.key_id !== old.key_id)).toMatchObject({ cost: 0, unpriced_requests: 1 });
  });

  it('--range hour gives the last hour in minute buckets, as the screen’s H; a range it has not, or a screen without one, is bad usage', async () => {
    const r = await runCli(['get', 'usage', '--range', 'hour', '--json', ...conn()]);
    expect(r.code, r.stderr).toBe(0);
    const usage = JSON.parse(r.stdout) as { bucket: string; data: { buckets: { rejected: number }[] }[] };
    expect(usage.bucket).toBe('minute');
    expect(usage.data[0].buckets.length).toBeGreaterThanOrEqual(60);
    expect(usage.data.reduce((n, u) => n + u.buckets.reduce((m, b) => m + b.rejected, 0), 0)).toBe(2);
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

describe('appliance-admin get spend', () => {
  it('prints the cost by model over the last 7 days, the unpriced model apart', async () => {
    const r = await runCli(['get', 'spend', ...conn()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Last 7 days by day · <?0\.\d\d EUR · 1 call of unknown cost · 2 models · \d{4}-.* UTC\n/,
    );
    expect(r.stdout).toMatch(/Group\s+Cost\s+Share\s+Requests\s+Unpriced/);
    expect(r.stdout).toMatch(/Llama 3\.1 8B Instruct\s+<?0\.\d\d EUR\s+\d+%\s+1\s+0\s/);
    expect(r.stdout).toMatch(/Mistral 7B Instruct\s+unpriced\s+0%\s+1\s+1\s/);
  });

  it('--by key --range month --json gives the answer by key over 30 days; a grouping it has not is bad usage', async () => {
    const r = await runCli(['get', 'spend', '--by', 'key', '--range', 'month', '--json', ...conn()]);
    expect(r.code, r.stderr).toBe(0);
    const spend = JSON.parse(r.stdout) as {
      currency: string;
      bucket: string;
      group_by: string;
      start_time: string;
      end_time: string;
      data: { name: string; cost: number; unpriced_requests: number; buckets: unknown[] }[];
    };
    expect(spend).toMatchObject({ currency: 'EUR', bucket: 'day', group_by: 'key' });
    expect(spend.data.map((g) => g.name)).toEqual(['old-client', 'summarizer']);
    expect(spend.data[0].buckets).toHaveLength(30);
    const bad = await runCli(['get', 'spend', '--by', 'team', ...conn()]);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringMatching(/--by must be one of model, workload, key, got team/),
    ]);
    const none = await runCli(['get', 'usage', '--by', 'key', ...conn()]);
    expect([none.code, none.stderr]).toEqual([2, expect.stringMatching(/the usage screen has no grouping/)]);
  });
});
