/**
 * The overview's triage board as data: one line per thing that needs attention, worst first, each
 * with its reason in words, a count over a stated window, and the screen that shows its cause.
 * A pure function of the resources as they are now, shared by the overview screen and
 * `appliance-admin get overview --json`, so both say the same thing. Each group of rules is a
 * module beside this one; this puts their lines in order.
 */
import type {
  BudgetUsage,
  Connector,
  Deployment,
  GatewayKey,
  Model,
  RoutingEntry,
  Summary,
  Usage,
} from '../../contract/index.js';
import type { PinnedAuditKey } from '../kit/screen-api.js';
import { list } from './answers.js';
import { budgetLines, failureLines } from './agents.js';
import { chainOf, chainStateLine } from './audit-chain-state.js';
import { connectorLines } from './connectors.js';
import { deniedLines } from './denied-attempts.js';
import { deploymentLines } from './deployment.js';
import { budgetSpendLines, expiryLines, quotaLines, rejectionLines, unusedKeysLine } from './gateway-keys.js';
import { headlineLines } from './headlines.js';
import type { Severity, TriageLine } from './line.js';
import { modelLines, unpricedModelLines } from './models.js';
import { answerOf, servedOf, sourceLines, type TriageInput, type TriageSource } from './sources.js';

const ORDER: Record<Severity, number> = { crit: 0, warn: 1, unknown: 2, ok: 3 };

/**
 * The triage lines for what has arrived; a resource still loading or unreadable gets a line saying
 * so. `auditKey`: the audit key pinned for this appliance, which the chain's checkpoint is checked with;
 * `nowMs`: the time keys' expiry and idleness are judged at (default: now).
 */
export function triage(input: TriageInput, o: { auditKey?: PinnedAuditKey; nowMs?: number } = {}): TriageLine[] {
  const nowMs = o.nowMs ?? Date.now();
  const data = <T>(id: TriageSource): T | undefined => answerOf<T>(input, id);
  const served = (id: TriageSource): unknown => servedOf(input, id);
  // the active keys with a money budget (the usage answers carry the name and quota of every other key they count)
  const keys = new Map(list<GatewayKey>(data('keys')).map((k) => [k.id, k]));
  const dep = data<Deployment>('deployment');
  const chain = chainOf(served('auditNewest'), served('auditCheckpoint'), o.auditKey);
  const problems = [
    ...deploymentLines(dep),
    ...connectorLines(list<Connector>(data('connectors'))),
    // the last hour's rejections are in the last hour's usage: the board asks a window of its own only for a day or a week
    ...rejectionLines(data<Usage>('rejections' in input ? 'rejections' : 'usage'), keys),
    ...quotaLines(data<Usage>('usage'), data<Usage>('usageToday'), keys),
    ...budgetSpendLines(data('keys')),
    ...expiryLines(data('keysExpiring'), nowMs),
    ...unusedKeysLine(data('keysUnused')),
    ...failureLines(data<Summary>('failuresByError'), data<Summary>('failuresByTool')),
    ...budgetLines(data<BudgetUsage>('budgetUsage')),
    ...modelLines(list<Model>(data('models')), list<RoutingEntry>(data('routing'))),
    ...unpricedModelLines(list<Model>(data('models')), list<RoutingEntry>(data('routing')), data<Usage>('usage')),
    ...deniedLines(data<Summary>('denied'), data('authRefused')),
  ];
  // the chain's state is always on the board: a break or a check not made among the problems
  const chainLine = chainStateLine(chain, dep, served('auditCheckpoint') !== undefined);
  if (chainLine && chainLine.severity !== 'ok') problems.push(chainLine);
  const lines = [...problems, ...sourceLines(input)];
  if (!problems.length) lines.push(...headlineLines(input));
  if (chainLine?.severity === 'ok') lines.push(chainLine);
  // stable: within a severity, the order above (deployment, connectors, keys, agents, models, audit)
  return lines.sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
}
