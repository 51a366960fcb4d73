import type { BudgetUsage, BudgetValues, Budgets } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { iso } from '../ids.js';

const MINUTE_MS = 60_000;
const BUDGET_WINDOW_MS = 24 * 3600_000;

type AgentUsage = BudgetUsage['agents'][number];
interface RunRow {
  agent: string;
  tokens: number;
  tool_calls: number;
  ms: number;
}

/**
 * Runs that started in [start, end): a run is the steps sharing a run_id, its tool calls the steps
 * with a tool, its seconds from its first step's start to its last step's end (steps still running
 * have no end yet). A run with a step before the window started before it, and is left out.
 */
const RUNS_SQL = `SELECT agent, sum(input_tokens + output_tokens) AS tokens, count(tool) AS tool_calls,
    max(0, coalesce(max(started_ms + duration_ms), min(started_ms)) - min(started_ms)) AS ms
  FROM journal j WHERE started_ms >= @start AND started_ms < @end
    AND NOT EXISTS (SELECT 1 FROM journal p WHERE p.run_id = j.run_id AND p.started_ms < @start)
  GROUP BY agent, run_id`;
/** Every step that started in the window counts against the agent's tokens_per_day. */
const TOKENS_SQL = `SELECT agent, sum(input_tokens + output_tokens) AS tokens FROM journal
  WHERE started_ms >= @start AND started_ms < @end GROUP BY agent`;

const effective = (budgets: Budgets, agent: string): BudgetValues => {
  const override = budgets.agents[agent] ?? {};
  const pick = (k: keyof BudgetValues) => (override[k] !== undefined ? override[k] : budgets.defaults[k]);
  return {
    tokens_per_run: pick('tokens_per_run'),
    tool_calls_per_run: pick('tool_calls_per_run'),
    seconds_per_run: pick('seconds_per_run'),
    tokens_per_day: pick('tokens_per_day'),
  };
};

const over = (value: number, limit: number | null) => (limit !== null && value > limit ? 1 : 0);

/**
 * How much of its budget each agent used over the last 24 hours, from the journal: every agent
 * that ran in the window and every agent with an override, by name. The window ends with the
 * current minute, so polling an idle appliance gets the same answer (and ETag) for a minute.
 */
export function budgetUsage(db: Db, budgets: Budgets, nowMs: number): BudgetUsage {
  const endMs = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const window = { start: endMs - BUDGET_WINDOW_MS, end: endMs };
  const byAgent = new Map<string, AgentUsage>();
  const entry = (agent: string): AgentUsage => {
    let u = byAgent.get(agent);
    if (!u) {
      u = {
        agent,
        limits: effective(budgets, agent),
        tokens: 0,
        runs: 0,
        peak_run: { tokens: 0, tool_calls: 0, seconds: 0 },
        runs_over: { tokens_per_run: 0, tool_calls_per_run: 0, seconds_per_run: 0 },
      };
      byAgent.set(agent, u);
    }
    return u;
  };
  for (const agent of Object.keys(budgets.agents)) entry(agent);
  for (const r of db.prepare(TOKENS_SQL).all(window) as { agent: string; tokens: number }[])
    entry(r.agent).tokens = r.tokens;
  for (const r of db.prepare(RUNS_SQL).all(window) as RunRow[]) {
    const u = entry(r.agent);
    const seconds = r.ms / 1000;
    u.runs++;
    u.peak_run.tokens = Math.max(u.peak_run.tokens, r.tokens);
    u.peak_run.tool_calls = Math.max(u.peak_run.tool_calls, r.tool_calls);
    u.peak_run.seconds = Math.max(u.peak_run.seconds, seconds);
    u.runs_over.tokens_per_run += over(r.tokens, u.limits.tokens_per_run);
    u.runs_over.tool_calls_per_run += over(r.tool_calls, u.limits.tool_calls_per_run);
    u.runs_over.seconds_per_run += over(seconds, u.limits.seconds_per_run);
  }
  const agents = [...byAgent.values()].sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0));
  return { start_time: iso(window.start), end_time: iso(window.end), agents };
}
