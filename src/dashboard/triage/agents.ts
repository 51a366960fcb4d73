/** Agents: failed steps over the last day, and agents near their budgets. */
import type { BudgetUsage, Summary } from '../../contract/index.js';
import { num, objects } from './answers.js';
import { LAST_DAY, n, NEAR, plural, type Severity, type TriageLine } from './line.js';

const topOf = (sub: unknown) => objects<Summary['groups'][number]>(sub).find((s) => s.key !== null) ?? null;

export function failureLines(byError: Summary | undefined, byTool: Summary | undefined): TriageLine[] {
  const tools = new Map(objects<Summary['groups'][number]>(byTool?.groups).map((g) => [g.key, topOf(g.sub)]));
  // either summary gives the agents and counts; the error one is asked first
  const groups = objects<Summary['groups'][number]>((byError ?? byTool)?.groups);
  return groups
    .filter((g) => g.key !== null && num(g.count) > 0)
    .map((g) => {
      const error = byError ? topOf(g.sub) : null;
      const tool = tools.get(g.key) ?? null;
      const parts = [
        error ? `top error ${error.key} (${n(num(error.count))})` : null,
        tool ? `top tool ${tool.key} (${n(num(tool.count))})` : null,
      ].filter(Boolean);
      return {
        key: `agent-failures:${g.key}`,
        severity: 'warn',
        what: `Agent ${g.key}`,
        reason: `${plural(num(g.count), 'failed step')}${parts.length ? `: ${parts.join(', ')}` : ''}`,
        count: num(g.count),
        window: LAST_DAY,
        link: { screen: 'journal', extra: { range: '24h', filters: { agent: g.key!, status: 'failed' } } },
      } satisfies TriageLine;
    });
}

const RUN_LIMITS = [
  ['tokens_per_run', 'tokens'],
  ['tool_calls_per_run', 'tool calls'],
  ['seconds_per_run', 'seconds'],
] as const;

/** Near a budget: tokens over the last 24 h >= 80% of tokens_per_day, or a run over a per-run limit. */
export function budgetLines(usage: BudgetUsage | undefined): TriageLine[] {
  const lines: TriageLine[] = [];
  for (const a of objects<BudgetUsage['agents'][number]>(usage?.agents)) {
    const parts: string[] = [];
    let severity: Severity = 'warn';
    let count: number | null = null;
    const perDay = a.limits?.tokens_per_day;
    if (perDay && num(a.tokens) >= NEAR * perDay) {
      parts.push(`used ${n(num(a.tokens))} of ${n(perDay)} tokens a day`);
      if (num(a.tokens) >= perDay) severity = 'crit';
      count = num(a.tokens);
    }
    let over = 0;
    for (const [limit, words] of RUN_LIMITS) {
      const runs = num(a.runs_over?.[limit]);
      if (runs <= 0) continue;
      over += runs;
      parts.push(`${plural(runs, 'run')} over ${n(num(a.limits?.[limit]))} ${words} a run`);
    }
    if (!parts.length) continue;
    lines.push({
      key: `agent-budget:${a.agent}`,
      severity,
      what: `Agent ${a.agent}`,
      reason: `near its budget: ${parts.join('; ')}`,
      count: count ?? over,
      window: LAST_DAY,
      link: { screen: 'budgets', select: `agent:${a.agent}` },
    });
  }
  return lines;
}
