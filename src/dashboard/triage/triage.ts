/**
 * The overview's triage board as data: one line per thing that needs attention, worst first, each
 * with its reason in words, a count over a stated window, and the screen that shows its cause.
 * A pure function of the resources as they are now, shared by the overview screen and
 * `appliance-admin get overview --json`, so both say the same thing.
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
import { shortTime } from '../kit/format.js';
import { thousands } from '../../text/thousands.js';
import { chainBroken, chainCheckOf, type ChainCheck } from '../audit-trail/audit-chain.js';
import type { PinnedAuditKey, ScreenLink } from '../kit/screen-api.js';

/** What the overview reads, by resource id (the ids of overview.tsx's resources). */
export const TRIAGE_SOURCES = {
  deployment: 'Deployment status',
  connectors: 'Connectors',
  usage: 'Gateway usage, last hour',
  usageToday: 'Gateway usage, today',
  keys: 'Gateway keys',
  failuresByError: 'Agent failures by error',
  failuresByTool: 'Agent failures by tool',
  budgetUsage: 'Agent budget use',
  models: 'Models',
  routing: 'Model routing',
  denied: 'Denied attempts',
  authRefused: 'Requests without a valid token',
  auditNewest: 'Audit trail, newest page',
  auditCheckpoint: 'Audit checkpoint',
} as const;
export type TriageSource = keyof typeof TRIAGE_SOURCES;

/**
 * One resource as the board sees it: not there yet, its answer (`staleError`: the last poll
 * failed, this is the answer before), or why it could not be read.
 */
type TriageResource =
  | { state: 'loading' }
  /** `served`: the answer as it came off the wire, for the audit chain's check (ResourceEntry `served`) */
  | { state: 'ok'; data: unknown; served?: unknown; staleError?: string }
  | { state: 'error'; error: string };
export type TriageInput = Partial<Record<TriageSource, TriageResource>>;

/** crit: broken now; warn: failing in part or about to; unknown: could not be read; ok: fine (headline figures). */
export type Severity = 'crit' | 'warn' | 'unknown' | 'ok';
const ORDER: Record<Severity, number> = { crit: 0, warn: 1, unknown: 2, ok: 3 };

export interface TriageLine {
  /** stable per thing: `connector:conn_crm`, `agent-failures:hr-assistant` */
  key: string;
  severity: Severity;
  what: string;
  reason: string;
  /** how many over `window` (null for a state, e.g. a connector in error) */
  count: number | null;
  /** "now", "last hour", "last 24 h", "today" (the UTC day, as the gateway counts a day's tokens) */
  window: string;
  /** the screen and filter that show the cause */
  link: ScreenLink | null;
}

/** A key or an agent is near a limit at this share of it. */
const NEAR = 0.8;
const LAST_HOUR = 'last hour';
const LAST_DAY = 'last 24 h';
const TODAY = 'today';
const NOW = 'now';

const n = thousands;
const plural = (count: number, one: string, many = `${one}s`) => `${n(count)} ${count === 1 ? one : many}`;
/** The objects of an array (another appliance may answer other shapes: they give no line). */
const objects = <T>(v: unknown): T[] =>
  Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object') as T[]) : [];
/** A list answer's rows: data.data, or a bare array. */
const list = <T>(v: unknown): T[] =>
  objects<T>(v && typeof v === 'object' && !Array.isArray(v) ? (v as { data?: unknown }).data : v);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * The triage lines for what has arrived; a resource still loading or unreadable gets a line saying
 * so. `auditKey`: the audit key pinned for this appliance, which the chain's checkpoint is checked with.
 */
export function triage(input: TriageInput, o: { auditKey?: PinnedAuditKey } = {}): TriageLine[] {
  const data = <T>(id: TriageSource): T | undefined => {
    const r = input[id];
    return r?.state === 'ok' && r.data !== undefined && r.data !== null ? (r.data as T) : undefined;
  };
  const served = (id: TriageSource): unknown => {
    const r = input[id];
    return r?.state === 'ok' ? r.served : undefined;
  };
  const keys = new Map(list<GatewayKey>(data('keys')).map((k) => [k.id, k]));
  const dep = data<Deployment>('deployment');
  const chain = chainOf(served('auditNewest'), served('auditCheckpoint'), o.auditKey);
  const problems = [
    ...deploymentLines(dep),
    ...connectorLines(list<Connector>(data('connectors'))),
    ...rejectionLines(data<Usage>('usage'), keys),
    ...quotaLines(data<Usage>('usage'), data<Usage>('usageToday'), keys),
    ...failureLines(data<Summary>('failuresByError'), data<Summary>('failuresByTool')),
    ...budgetLines(data<BudgetUsage>('budgetUsage')),
    ...modelLines(list<Model>(data('models')), list<RoutingEntry>(data('routing'))),
    ...deniedLines(data<Summary>('denied'), data('authRefused')),
  ];
  // the chain's state is always on the board: a break or a check not made among the problems
  const chainLine = chainStateLine(chain, dep, served('auditCheckpoint') !== undefined);
  if (chainLine && chainLine.severity !== 'ok') problems.push(chainLine);
  const sourceLines = (Object.keys(TRIAGE_SOURCES) as TriageSource[]).flatMap((id): TriageLine[] => {
    const r = input[id];
    if (r?.state === 'ok' && !r.staleError) return [];
    const what = TRIAGE_SOURCES[id];
    const reason =
      r?.state === 'ok'
        ? `failed to refresh, the lines above use its last answer: ${r.staleError}`
        : r?.state === 'error'
          ? `failed to load: ${r.error}`
          : 'loading…';
    return [{ key: `source:${id}`, severity: 'unknown', what, reason, count: null, window: NOW, link: null }];
  });
  const lines = [...problems, ...sourceLines];
  if (!problems.length) lines.push(...headlineLines(input, data));
  if (chainLine?.severity === 'ok') lines.push(chainLine);
  // stable: within a severity, the order above (deployment, connectors, keys, agents, models, audit)
  return lines.sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
}

/** The component /deployment names for the appliance's own check of its trail before it signs. */
const CHAIN_COMPONENT = 'audit-chain';

function deploymentLines(dep: Deployment | undefined): TriageLine[] {
  if (!dep) return [];
  const link: ScreenLink = { screen: 'deployment' };
  const bad = objects<Deployment['components'][number]>(dep.components).filter((c) => c.status !== 'healthy');
  const lines: TriageLine[] = bad.map((c) =>
    c.name === CHAIN_COMPONENT
      ? chainComponentLine(c)
      : {
          key: `component:${c.name}`,
          severity: c.status === 'down' ? 'crit' : 'warn',
          what: `Deployment ${dep.status}`,
          reason: `${c.name} ${c.status}${c.message ? `: ${c.message}` : ''}`,
          count: null,
          window: NOW,
          link,
        },
  );
  if (!lines.length && dep.status !== 'healthy') {
    lines.push({
      key: 'deployment',
      severity: 'warn',
      what: `Deployment ${dep.status}`,
      reason: `the appliance reports itself ${dep.status}`,
      count: null,
      window: NOW,
      link,
    });
  }
  return lines;
}

function connectorLines(connectors: Connector[]): TriageLine[] {
  return connectors
    .filter((c) => c.state !== 'healthy' && c.state !== 'syncing' && c.state !== 'disabled')
    .map((c) => {
      const sync = c.last_sync;
      const failed = sync?.status === 'failed';
      const why = sync?.error
        ? `last sync failed: ${sync.error}`
        : failed
          ? `last sync failed at ${shortTime(sync.at)} UTC (job ${sync.job_id})`
          : 'no failed sync on record';
      return {
        key: `connector:${c.id}`,
        severity: c.state === 'error' ? 'crit' : 'warn',
        what: `Connector ${c.name ?? c.id}`,
        reason: `${c.state}: ${why}`,
        count: null,
        window: NOW,
        link: { screen: 'connectors', select: c.id },
      } satisfies TriageLine;
    });
}

const CAUSE_WORDS: Record<string, string> = {
  requests_per_minute: 'requests/minute quota',
  tokens_per_minute: 'tokens/minute quota',
  tokens_per_day: 'tokens/day quota',
  revoked: 'key revoked',
  unknown_workload: 'unknown workload',
};

const keyName = (keys: Map<string, GatewayKey>, id: string) => keys.get(id)?.name ?? id;

function rejectionLines(usage: Usage | undefined, keys: Map<string, GatewayKey>): TriageLine[] {
  return list<Usage['data'][number]>(usage)
    .filter((u) => num(u.rejected) > 0)
    .sort((a, b) => num(b.rejected) - num(a.rejected))
    .map((u) => {
      const causes = Object.entries(u.rejected_by ?? {})
        .filter(([, c]) => num(c) > 0)
        .sort((a, b) => num(b[1]) - num(a[1]))
        .map(([cause, c]) => `${n(num(c))} ${CAUSE_WORDS[cause] ?? cause}`);
      return {
        key: `key-rejections:${u.key_id}`,
        severity: 'warn',
        what: `Key ${keyName(keys, u.key_id)}`,
        reason: `${plural(num(u.rejected), 'call')} rejected${causes.length ? `: ${causes.join(', ')}` : ''}`,
        count: num(u.rejected),
        window: LAST_HOUR,
        link: { screen: 'keys', select: u.key_id },
      } satisfies TriageLine;
    });
}

/**
 * Near a quota, defined simply: over the last hour, an average minute used >= 80% of the
 * per-minute quota (requests or tokens), or today's tokens (UTC day, as the gateway counts them)
 * reached >= 80% of the daily quota.
 */
function quotaLines(hour: Usage | undefined, today: Usage | undefined, keys: Map<string, GatewayKey>): TriageLine[] {
  const lastHour = new Map(list<Usage['data'][number]>(hour).map((u) => [u.key_id, u]));
  const todayByKey = new Map(list<Usage['data'][number]>(today).map((u) => [u.key_id, u]));
  const lines: TriageLine[] = [];
  for (const key of keys.values()) {
    if (key.status !== 'active' || !key.quota) continue;
    const near: { text: string; share: number; count: number; window: string }[] = [];
    const h = lastHour.get(key.id);
    const rpm = key.quota.requests_per_minute;
    if (h && rpm) {
      const perMinute = num(h.requests) / 60;
      if (perMinute >= NEAR * rpm)
        near.push({
          text: `averaged ${n(Math.round(perMinute))} of ${n(rpm)} requests a minute over the last hour`,
          share: perMinute / rpm,
          count: num(h.requests),
          window: LAST_HOUR,
        });
    }
    const tpm = key.quota.tokens_per_minute;
    if (h && tpm) {
      const perMinute = (num(h.input_tokens) + num(h.output_tokens)) / 60;
      if (perMinute >= NEAR * tpm)
        near.push({
          text: `averaged ${n(Math.round(perMinute))} of ${n(tpm)} tokens a minute over the last hour`,
          share: perMinute / tpm,
          count: Math.round(perMinute * 60),
          window: LAST_HOUR,
        });
    }
    const d = todayByKey.get(key.id);
    const tpd = key.quota.tokens_per_day;
    if (d && tpd) {
      const used = num(d.input_tokens) + num(d.output_tokens);
      if (used >= NEAR * tpd)
        near.push({
          text: `used ${n(used)} of ${n(tpd)} tokens today (UTC)`,
          share: used / tpd,
          count: used,
          window: TODAY,
        });
    }
    if (!near.length) continue;
    near.sort((a, b) => b.share - a.share);
    lines.push({
      key: `key-quota:${key.id}`,
      severity: 'warn',
      what: `Key ${key.name ?? key.id}`,
      reason: `${near[0].share >= 1 ? 'at' : 'near'} its quota: ${near.map((x) => x.text).join('; ')}`,
      count: near[0].count,
      window: near[0].window,
      link: { screen: 'keys', select: key.id },
    });
  }
  return lines;
}

const topOf = (sub: unknown) => objects<Summary['groups'][number]>(sub).find((s) => s.key !== null) ?? null;

function failureLines(byError: Summary | undefined, byTool: Summary | undefined): TriageLine[] {
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
function budgetLines(usage: BudgetUsage | undefined): TriageLine[] {
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

/** A model the appliance does not have, but which is active or which a workload is routed to. */
function modelLines(models: Model[], routing: RoutingEntry[]): TriageLine[] {
  return models
    .filter((m) => m.state === 'missing')
    .map((m) => ({
      m,
      workloads: routing.filter((r) => r.model_id === m.id || r.effective_model_id === m.id).map((r) => r.workload),
    }))
    .filter(({ m, workloads }) => m.active || workloads.length > 0)
    .map(({ m, workloads }) => {
      const uses = [
        m.active ? 'it is the active model' : null,
        workloads.length ? `routed to by ${workloads.join(', ')}` : null,
      ].filter(Boolean);
      return {
        key: `model:${m.id}`,
        severity: 'crit',
        what: `Model ${m.name ?? m.id}`,
        reason: `missing from the appliance, but ${uses.join(' and ')}`,
        count: null,
        window: NOW,
        link: { screen: 'models', select: m.id },
      } satisfies TriageLine;
    });
}

/** The action of the entries the appliance writes for requests without a valid token (401). */
const AUTH_REFUSED = 'auth.refused';

/**
 * Denied attempts over the last day, 403 and 401 apart. 403s (refused for lack of permission) are
 * the denied entries but the 401s': `denied` counts every denied entry by actor, split by action.
 * 401s are written as one `auth.refused` entry per source and minute with their `details.count`
 * (a flood must not fill the disk): `authRefused` is the newest page of them, whose counts are
 * added up ("at least" when there are more than a page).
 */
function deniedLines(denied: Summary | undefined, authRefused: unknown): TriageLine[] {
  const groups = objects<Summary['groups'][number]>(denied?.groups);
  const refusedIn = (g: Summary['groups'][number]) =>
    num(objects<Summary['groups'][number]>(g.sub).find((s) => s.key === AUTH_REFUSED)?.count);
  const forbidden = Math.max(0, num(denied?.total) - groups.reduce((t, g) => t + refusedIn(g), 0));
  const top = groups
    .filter((g) => g.key !== null && num(g.count) - refusedIn(g) > 0)
    .map((g) => ({ key: g.key!, count: num(g.count) - refusedIn(g) }))
    .sort((a, b) => b.count - a.count)[0];
  const unauthenticated = tokenRefusals(authRefused);
  if (forbidden <= 0 && unauthenticated.requests <= 0) return [];
  const parts = [
    forbidden > 0
      ? `${plural(forbidden, 'request')} refused for lack of permission (403)` +
        `${top ? `; top actor ${top.key} (${n(top.count)})` : ''}`
      : null,
    unauthenticated.requests > 0
      ? `${unauthenticated.more ? 'at least ' : ''}${plural(unauthenticated.requests, 'request')} without a valid ` +
        `token (401) from ${plural(unauthenticated.sources, 'source')}`
      : null,
  ].filter(Boolean);
  return [
    {
      key: 'denied',
      severity: 'warn',
      what: 'Denied attempts',
      reason: parts.join(' · '),
      count: forbidden + unauthenticated.requests,
      window: LAST_DAY,
      link: { screen: 'audit', extra: { range: '24h', filters: { outcome: 'denied' } } },
    },
  ];
}

/**
 * The 401s of a page of `auth.refused` entries: the requests they count, from how many sources (an
 * entry without a source stands for the sources past the appliance's cap, `details.sources`), and
 * whether the page has more.
 */
function tokenRefusals(answer: unknown): { requests: number; sources: number; more: boolean } {
  const entries = list<{ action?: unknown; source_ip?: unknown; details?: Record<string, unknown> | null }>(answer);
  const ips = new Set<string>();
  let requests = 0;
  let pooled = 0;
  for (const e of entries) {
    if (e.action !== AUTH_REFUSED) continue;
    requests += Math.max(1, num(e.details?.count));
    if (typeof e.source_ip === 'string') ips.add(e.source_ip);
    // the entry for the sources past the appliance's cap says how many they were
    else pooled += Math.max(1, num(e.details?.sources));
  }
  const more = (answer as { has_more?: unknown } | null)?.has_more === true;
  return { requests, sources: ips.size + pooled, more };
}

/**
 * The newest audit page and checkpoint list, as served (ResourceEntry `served`), checked
 * (docs/audit-chain.md) once the page arrived; with the pinned key when there is one.
 */
export function chainOf(page: unknown, checkpoints: unknown, auditKey?: PinnedAuditKey): ChainCheck | undefined {
  if (page === undefined) return undefined;
  return chainCheckOf(page, checkpoints, { whole: true, ...(auditKey ? { auditKey } : {}) });
}

/**
 * The chain's state, always on the board and short: the newest entries checked (or V's verify of the
 * whole trail) with its newest signed checkpoint and whether the key it verified with was pinned (OK); broken (CRIT, Enter opens the audit
 * screen); not checked (WARN: the pinned key file holds no usable key). When the appliance itself
 * refuses its trail (its audit-chain component is down), that line says so and this one is left out.
 */
function chainStateLine(
  check: ChainCheck | undefined,
  dep: Deployment | undefined,
  listRead: boolean,
): TriageLine | null {
  if (!check) return null;
  const base = { key: 'audit-chain', count: null, window: NOW, link: { screen: 'audit' } };
  if (!check.ok && chainBroken(check))
    return {
      ...base,
      severity: 'crit',
      what: `Audit chain broken${check.seq === null ? '' : ` at #${n(check.seq)}`}`,
      // the finding says what broke (an entry, a checkpoint, a key that is not the pinned one): V says the rest
      reason: `${check.finding} (V on the audit screen verifies the whole trail)`,
    };
  if (!check.ok) return { ...base, severity: 'warn', what: 'Audit chain not checked', reason: check.finding };
  const refused = objects<Deployment['components'][number]>(dep?.components).some(
    (c) => c.name === CHAIN_COMPONENT && c.status === 'down',
  );
  // an intact page says nothing of the checkpoints until their list is read (its source line says so)
  if (refused || check.lastSeq === null || !listRead) return null;
  // short, to be read whole at 80 columns: the audit screen says how old the checkpoint is
  const c = check.checkpoint?.checkpoint;
  const signed = c
    ? `checkpoint #${n(c.seq)} ${check.pinned ? 'by the pinned key' : 'by a key not pinned'}`
    : 'no signed checkpoint yet';
  // what was checked is the newest page, not the trail: V verifies the whole of it
  const checked = check.verified
    ? `verified to #${n(check.verified.lastSeq)}`
    : `newest entries check out (to #${n(check.lastSeq)})`;
  return { ...base, severity: 'ok', what: 'Audit chain', reason: `${checked} · ${signed}` };
}

/** The appliance's own check of its trail before it signs: /deployment's audit-chain component. */
function chainComponentLine(c: Deployment['components'][number]): TriageLine {
  const down = c.status === 'down';
  return {
    key: `component:${c.name}`,
    severity: down ? 'crit' : 'warn',
    what: 'Audit chain',
    reason: `${down ? 'refused by the appliance' : 'checkpoints not signed'}${c.message ? `: ${c.message}` : ''}`,
    count: null,
    window: NOW,
    link: { screen: 'deployment' },
  };
}

/** With nothing to attend to: it says so, and the figures an operator glances at. */
function headlineLines(input: TriageInput, data: <T>(id: TriageSource) => T | undefined): TriageLine[] {
  const ok = (
    key: string,
    what: string,
    reason: string,
    count: number | null,
    window: string,
    link: ScreenLink | null,
  ): TriageLine => ({ key, severity: 'ok', what, reason, count, window, link });
  const lines: TriageLine[] = [];
  const everything = (Object.keys(TRIAGE_SOURCES) as TriageSource[]).every((id) => input[id]?.state === 'ok');
  if (everything)
    lines.push(
      ok(
        'all-clear',
        'Nothing needs attention',
        'no failure, rejection or limit near on this appliance',
        null,
        NOW,
        null,
      ),
    );
  const dep = data<Deployment>('deployment');
  if (dep)
    lines.push(
      ok(
        'headline:deployment',
        `Deployment ${dep.status}`,
        `version ${dep.version}, ${plural(objects(dep.components).length, 'component')} healthy`,
        null,
        NOW,
        { screen: 'deployment' },
      ),
    );
  const connectors = list<Connector>(data('connectors'));
  if (data('connectors'))
    lines.push(
      ok(
        'headline:connectors',
        'Connectors',
        `${plural(connectors.length, 'connector')}, none failing`,
        connectors.length,
        NOW,
        { screen: 'connectors' },
      ),
    );
  const usage = list<Usage['data'][number]>(data('usage'));
  if (data('usage')) {
    const requests = usage.reduce((t, u) => t + num(u.requests), 0);
    lines.push(
      ok(
        'headline:usage',
        'Gateway',
        `${plural(requests, 'request')} from ${plural(usage.length, 'key')}, none rejected`,
        requests,
        LAST_HOUR,
        { screen: 'usage', extra: { range: 'hour' } },
      ),
    );
  }
  const failures = data<Summary>('failuresByError');
  if (failures)
    lines.push(
      ok('headline:agents', 'Agents', 'no failed step', 0, LAST_DAY, { screen: 'journal', extra: { range: '24h' } }),
    );
  const active = list<Model>(data('models')).find((m) => m.active);
  if (active)
    lines.push(
      ok('headline:model', 'Active model', `${active.name ?? active.id} (${active.state})`, null, NOW, {
        screen: 'models',
        select: active.id,
      }),
    );
  return lines;
}
