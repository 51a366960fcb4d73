import type { JournalError } from '../../contract/index.js';
import type { ServerConfig } from '../config.js';
import type { Rng } from './prng.js';

/** The demo's agents, the channels they answer on, the tools they call and the workload they use. */
interface DemoAgent {
  name: string;
  channels: string[];
  tools: string[];
  workload: string;
  weight: number;
}

const DEMO_AGENTS: DemoAgent[] = [
  {
    name: 'hr-assistant',
    channels: ['chan_teams', 'chan_web'],
    tools: ['search_docs', 'policy_lookup', 'calendar_lookup'],
    workload: 'chat',
    weight: 3,
  },
  {
    name: 'finance-analyst',
    channels: ['chan_web', 'chan_api'],
    tools: ['sql_query', 'ledger_lookup', 'search_docs'],
    workload: 'extract',
    weight: 2,
  },
  {
    name: 'it-helpdesk',
    channels: ['chan_teams', 'chan_slack', 'chan_web'],
    tools: ['search_docs', 'kb_lookup', 'create_ticket'],
    workload: 'chat',
    weight: 3,
  },
  {
    name: 'sales-copilot',
    channels: ['chan_teams', 'chan_slack'],
    tools: ['crm_lookup', 'search_docs', 'draft_email'],
    workload: 'summarize',
    weight: 2,
  },
  {
    name: 'contract-reviewer',
    channels: ['chan_api'],
    tools: ['search_docs', 'extract_clauses'],
    workload: 'extract',
    weight: 1,
  },
];

const TOOL_MS: Record<string, [number, number]> = {
  sql_query: [120, 2500],
  crm_lookup: [200, 1500],
  create_ticket: [300, 1200],
  search_docs: [80, 900],
};

interface PlannedStep {
  tool: string | null;
  duration_ms: number;
  /** pause before the step starts */
  gap_ms: number;
  input_tokens: number;
  output_tokens: number;
  status: 'succeeded' | 'failed' | 'cancelled';
  /** why a failed or cancelled step ended */
  error: JournalError | null;
}

export interface PlannedRun {
  agent: DemoAgent;
  channel: string;
  steps: PlannedStep[];
}

/** Channels an agent may use on this appliance: its own that the config has, else the first configured. */
function agentChannels(agent: DemoAgent, config: ServerConfig): string[] {
  const known = new Set(config.channels.map((c) => c.id));
  const own = agent.channels.filter((c) => known.has(c));
  return own.length ? own : [config.channels[0]?.id ?? 'chan_web'];
}

/**
 * One agent run: a model step to plan, then tool calls each followed by a model step, the last
 * model step answering. Most runs succeed; some fail at a step (a tool error) or are cancelled
 * (budget reached, user left), and stop there.
 */
export function planRun(rng: Rng, config: ServerConfig): PlannedRun {
  const agent = rng.weighted(DEMO_AGENTS.map((a) => [a, a.weight] as const));
  const channel = rng.pick(agentChannels(agent, config));
  const tools = rng.weighted([
    [1, 3],
    [2, 4],
    [3, 3],
    [4, 2],
    [5, 1],
  ] as const);
  const steps: PlannedStep[] = [];
  let context = rng.int(400, 1800);
  const model = (): PlannedStep => {
    const output = rng.int(30, 700);
    const step: PlannedStep = {
      tool: null,
      duration_ms: rng.int(350, 2800),
      gap_ms: rng.int(5, 60),
      input_tokens: context,
      output_tokens: output,
      status: 'succeeded',
      error: null,
    };
    context += output;
    return step;
  };
  steps.push(model());
  for (let i = 0; i < tools; i++) {
    const tool = rng.pick(agent.tools);
    const [lo, hi] = TOOL_MS[tool] ?? [60, 700];
    steps.push({
      tool,
      duration_ms: rng.int(lo, hi),
      gap_ms: rng.int(2, 30),
      input_tokens: 0,
      output_tokens: 0,
      status: 'succeeded',
      error: null,
    });
    context += rng.int(150, 1200);
    steps.push(model());
  }
  const ending = rng.weighted([
    ['succeeded', 91],
    ['failed', 6],
    ['cancelled', 3],
  ] as const);
  if (ending !== 'succeeded') {
    const at = rng.int(1, steps.length - 1);
    steps.length = at + 1;
    steps[at].status = ending;
    steps[at].error = ending === 'cancelled' ? rng.pick(CANCELLATIONS) : stepFailure(rng, steps[at], agent);
    if (ending === 'cancelled') steps[at].duration_ms = rng.int(0, steps[at].duration_ms);
  }
  return { agent, channel, steps };
}

/**
 * A contract review of a long contract that keeps extracting clauses until it passes its per-run
 * token budget: the model step that crosses the budget is its last, failed with budget_exceeded.
 * The seeded journal has one in its last hours, so budget usage shows a run over a limit.
 */
export function planOverBudgetRun(rng: Rng, config: ServerConfig, tokensPerRun: number): PlannedRun {
  const agent = DEMO_AGENTS.find((a) => a.name === 'contract-reviewer')!;
  const steps: PlannedStep[] = [];
  let context = rng.int(6000, 9000);
  for (let used = 0; ;) {
    const output = rng.int(200, 900);
    steps.push({
      tool: null,
      duration_ms: rng.int(2500, 6000),
      gap_ms: rng.int(5, 60),
      input_tokens: context,
      output_tokens: output,
      status: 'succeeded',
      error: null,
    });
    used += context + output;
    context += output;
    if (used > tokensPerRun) break;
    steps.push({
      tool: 'extract_clauses',
      duration_ms: rng.int(800, 3000),
      gap_ms: rng.int(2, 30),
      input_tokens: 0,
      output_tokens: 0,
      status: 'succeeded',
      error: null,
    });
    context += rng.int(800, 2000);
  }
  const last = steps[steps.length - 1];
  last.status = 'failed';
  last.error = { code: 'budget_exceeded', message: `the run passed its tokens_per_run budget of ${tokensPerRun}` };
  return { agent, channel: rng.pick(agentChannels(agent, config)), steps };
}

/**
 * A run of the named agent that fails at its first tool call (the tool's error or timeout): what
 * the demo puts into its last hour, so that failures show whatever the time of day.
 */
export function planFailingRun(rng: Rng, config: ServerConfig, agentName: string): PlannedRun {
  const agent = DEMO_AGENTS.find((a) => a.name === agentName) ?? DEMO_AGENTS[0];
  const tool = rng.pick(agent.tools);
  const [lo, hi] = TOOL_MS[tool] ?? [60, 700];
  const steps: PlannedStep[] = [
    {
      tool: null,
      duration_ms: rng.int(350, 2800),
      gap_ms: rng.int(5, 60),
      input_tokens: rng.int(400, 1800),
      output_tokens: rng.int(30, 700),
      status: 'succeeded',
      error: null,
    },
    {
      tool,
      duration_ms: rng.int(lo, hi),
      gap_ms: rng.int(2, 30),
      input_tokens: 0,
      output_tokens: 0,
      status: 'failed',
      error: null,
    },
  ];
  steps[1].error = stepFailure(rng, steps[1], agent);
  return { agent, channel: rng.pick(agentChannels(agent, config)), steps };
}

const CANCELLATIONS: JournalError[] = [
  { code: 'cancelled', message: 'the user left the conversation' },
  { code: 'cancelled', message: 'the conversation was closed on its channel' },
  { code: 'cancelled', message: 'stopped by an operator' },
];

/** What the tool's service answers when it fails, in an operator's words. */
const TOOL_FAILURES: Record<string, string> = {
  sql_query: 'the reporting replica refused the query: read-only transaction',
  ledger_lookup: 'the ledger service answered 503',
  crm_lookup: 'the CRM API answered 429: rate limit reached',
  create_ticket: 'the ticketing system refused the service account (403)',
  calendar_lookup: 'the calendar service answered 502',
};

/** A failed step's reason: a tool's error or timeout, or the model step's: no model, or the budget. */
function stepFailure(rng: Rng, step: PlannedStep, agent: DemoAgent): JournalError {
  if (step.tool !== null) {
    return rng.chance(0.4)
      ? { code: 'tool_timeout', message: `${step.tool} did not answer within ${rng.pick([10, 15, 30])} s` }
      : {
          code: 'tool_error',
          message: `${step.tool} failed: ${TOOL_FAILURES[step.tool] ?? 'the upstream service answered 500'}`,
        };
  }
  return rng.chance(0.6)
    ? { code: 'model_unavailable', message: `no model answered the ${agent.workload} workload within 60 s` }
    : { code: 'budget_exceeded', message: 'the run reached its tokens_per_run budget' };
}
