import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { recordJournal, type JournalRecord } from '../../src/server/governance/journal-writer.js';
import { BudgetUsage } from '../../src/contract/index.js';

const HOUR = 3600_000;
let s: TestServer;
let now: number;

/** One run's steps, back to back from `startMs`: each [duration ms, tokens, tool or null]. */
function run(
  runId: string,
  agent: string,
  startMs: number,
  steps: [number, number, string | null][],
  lastRunning = false,
) {
  let t = startMs;
  steps.forEach(([ms, tokens, tool], step) => {
    const running = lastRunning && step === steps.length - 1;
    const e: JournalRecord = {
      run_id: runId,
      agent,
      channel: 'chan_web',
      step,
      tool,
      status: running ? 'running' : 'succeeded',
      started_ms: t,
      ended_ms: running ? null : t + ms,
      input_tokens: Math.floor(tokens * 0.8),
      output_tokens: tokens - Math.floor(tokens * 0.8),
    };
    recordJournal(s.server.db, e);
    t += ms;
  });
}

beforeAll(async () => {
  s = await startTestServer();
  now = Date.now();
  // fixture defaults: 20,000 tokens, 20 tool calls, 300 s a run; no daily limit
  const put = await s.call('PUT', '/agent/budgets', {
    body: {
      defaults: { tokens_per_run: 20_000, tool_calls_per_run: 20, seconds_per_run: 300, tokens_per_day: null },
      agents: {
        researcher: { tokens_per_run: 25_000, tool_calls_per_run: 3, tokens_per_day: 60_000 },
        'mail-triage': { seconds_per_run: 60 },
      },
    },
  });
  expect(put.status).toBe(200);
  // researcher: a small run, and one over every per-run limit (30,000 tokens, 4 tools, 400 s)
  run('run_small', 'researcher', now - 5 * HOUR, [
    [4_000, 1_000, 'search_docs'],
    [6_000, 2_000, null],
  ]);
  run('run_big', 'researcher', now - 3 * HOUR, [
    [100_000, 10_000, 'search_docs'],
    [100_000, 10_000, 'sql_query'],
    [100_000, 5_000, 'search_docs'],
    [100_000, 5_000, 'crm_lookup'],
  ]);
  // a run that began before the window: its later step's tokens count for the day, the run does not
  run('run_overnight', 'researcher', now - 25 * HOUR, [
    [HOUR, 7_000, 'search_docs'],
    [23 * HOUR, 0, null],
    [1_000, 3_000, 'search_docs'],
  ]);
  // coder: one run still going, a week-old run that is out of the window altogether
  run(
    'run_live',
    'coder',
    now - 10 * 60_000,
    [
      [90_000, 500, 'run_tests'],
      [1, 700, null],
    ],
    true,
  );
  run('run_old', 'coder', now - 7 * 24 * HOUR, [[1_000, 50_000, 'run_tests']]);
});
afterAll(async () => {
  await s?.close();
});

describe('GET /agent/budgets/usage', () => {
  it("measures each agent's last 24 hours against its effective budget", async () => {
    const res = await s.call('GET', '/agent/budgets/usage', { role: 'auditor' });
    expect(res.status, res.text).toBe(200);
    const usage = BudgetUsage.parse(res.json);
    const end = Date.parse(usage.end_time);
    expect(end % 60_000).toBe(0);
    expect(end - now).toBeGreaterThan(0);
    expect(end - now).toBeLessThanOrEqual(60_000 + 5_000);
    expect(end - Date.parse(usage.start_time)).toBe(24 * HOUR);

    // by name: the agents that ran, and mail-triage, which has an override but never ran
    expect(usage.agents.map((a) => a.agent)).toEqual(['coder', 'mail-triage', 'researcher']);
    const [coder, mail, researcher] = usage.agents;
    expect(researcher).toEqual({
      agent: 'researcher',
      limits: { tokens_per_run: 25_000, tool_calls_per_run: 3, seconds_per_run: 300, tokens_per_day: 60_000 },
      tokens: 3_000 + 30_000 + 3_000, // the overnight run's only step inside the window: 3,000
      runs: 2,
      peak_run: { tokens: 30_000, tool_calls: 4, seconds: 400 },
      runs_over: { tokens_per_run: 1, tool_calls_per_run: 1, seconds_per_run: 1 },
    });
    expect(mail).toEqual({
      agent: 'mail-triage',
      limits: { tokens_per_run: 20_000, tool_calls_per_run: 20, seconds_per_run: 60, tokens_per_day: null },
      tokens: 0,
      runs: 0,
      peak_run: { tokens: 0, tool_calls: 0, seconds: 0 },
      runs_over: { tokens_per_run: 0, tool_calls_per_run: 0, seconds_per_run: 0 },
    });
    // a running run's seconds run to the end of its last finished step
    expect(coder).toMatchObject({
      limits: { tokens_per_run: 20_000, tool_calls_per_run: 20, seconds_per_run: 300, tokens_per_day: null },
      tokens: 1_200,
      runs: 1,
      peak_run: { tokens: 1_200, tool_calls: 1, seconds: 90 },
      runs_over: { tokens_per_run: 0, tool_calls_per_run: 0, seconds_per_run: 0 },
    });
  });

  it('follows a budget change at once: limits and runs over them', async () => {
    const put = await s.call('PUT', '/agent/budgets', {
      body: {
        defaults: { tokens_per_run: 1_000, tool_calls_per_run: null, seconds_per_run: null, tokens_per_day: 2_000 },
        agents: {},
      },
    });
    expect(put.status).toBe(200);
    const usage = BudgetUsage.parse((await s.call('GET', '/agent/budgets/usage')).json);
    expect(usage.agents.map((a) => a.agent)).toEqual(['coder', 'researcher']);
    const researcher = usage.agents[1];
    expect(researcher.limits).toEqual({
      tokens_per_run: 1_000,
      tool_calls_per_run: null,
      seconds_per_run: null,
      tokens_per_day: 2_000,
    });
    expect(researcher.runs_over).toEqual({ tokens_per_run: 2, tool_calls_per_run: 0, seconds_per_run: 0 });
    expect(usage.agents[0].runs_over.tokens_per_run).toBe(1);
  });

  it('refuses query parameters it does not take', async () => {
    const res = await s.call('GET', '/agent/budgets/usage?agent=coder');
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('SVC-ADMIN-400');
  });
});
