import { describeError } from '../src/dashboard/kit/errors.js';
import {
  defineScreen,
  type ListView,
  type ResourceEntry,
  type ResourceRequest,
  type ScreenAction,
  type Tone,
} from '../src/dashboard/kit/screen-api.js';
import { markOf } from '../src/dashboard/kit/theme.js';
import { isoSeconds } from '../src/text/time-input.js';
import { triage } from '../src/dashboard/triage/triage.js';
import { EXPIRY_LINES, UNUSED_NAMED } from '../src/dashboard/triage/gateway-keys.js';
import { listFilterQuery } from '../src/dashboard/kit/key-lifecycle.js';
import type { Severity, TriageLine } from '../src/dashboard/triage/line.js';
import { readingOf, TRIAGE_SOURCES, type TriageInput, type TriageSource } from '../src/dashboard/triage/sources.js';
import { loadChainCheck } from '../src/dashboard/audit-trail/audit-chain.js';
import { compact, usageWindow, type UsageRange } from './usage.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * The start of the last 24 hours, rounded down to 10 s so that polls within those 10 s ask the
 * same question and an idle appliance answers 304 (as the journal's "last day" does).
 */
const lastDay = (nowMs: number) => ({ start_time: isoSeconds(Math.floor((nowMs - DAY) / 10_000) * 10_000) });
/** Today as the gateway counts a key's tokens per day: from midnight UTC to the current minute. */
const today = (nowMs: number) => ({
  start_time: new Date(Math.floor(nowMs / DAY) * DAY).toISOString(),
  end_time: new Date(Math.floor(nowMs / MINUTE) * MINUTE + MINUTE).toISOString(),
});

const BADGE: Record<Severity, { text: string; tone: Tone }> = {
  crit: { text: 'CRIT', tone: 'bad' },
  warn: { text: 'WARN', tone: 'warn' },
  unknown: { text: 'N/A', tone: 'muted' },
  ok: { text: 'OK', tone: 'ok' },
};
/** `s` on State sorts by how bad it is, worst first (the badge's text and mark would put OK between WARN and CRIT). */
const SEVERITY_ORDER: Record<Severity, number> = { crit: 0, warn: 1, unknown: 2, ok: 3 };

/** An error in plain words with what an operator quotes (the shell's banner does not repeat it for this screen). */
function errorText(err: unknown): string {
  const d = describeError(err);
  // the code first: the headline may be cut at the end of the line (Enter shows the whole of it)
  const ref = [d.code, d.requestId ? `request ${d.requestId}` : null].filter(Boolean).join(' · ');
  return ref ? `${ref}: ${d.headline}` : d.headline;
}

/**
 * A resource as the triage reads it: its data once it arrived (also while a later poll fails). The
 * rejections of a window of their own are asked for a day or a week only (the last hour's usage has
 * the hour's): a source the board did not ask for is left out, not "loading".
 */
function triageInput(resources: Record<string, ResourceEntry>): TriageInput {
  const input: TriageInput = {};
  for (const id of Object.keys(TRIAGE_SOURCES) as TriageSource[]) {
    if (id === 'rejections' && !(id in resources)) continue;
    const e = resources[id];
    if (e?.data !== undefined)
      input[id] = {
        state: 'ok',
        data: e.data,
        ...(e.served !== undefined ? { served: e.served } : {}),
        ...(e.stale ? { staleError: errorText(e.error) } : {}),
      };
    else if (e?.status === 'error') input[id] = { state: 'error', error: errorText(e.error) };
    else input[id] = { state: 'loading' };
  }
  return input;
}

const countText = (l: TriageLine) => (l.count === null ? l.window : `${compact(l.count)} · ${l.window}`);

/**
 * The window the keys' rejections are counted over, chosen with H, D and W (the usage screen's
 * keys for the same windows): an hour confirms a fix, a day or a week finds what the hour forgot.
 */
const WINDOWS: Record<UsageRange, { key: string; label: string }> = {
  hour: { key: 'H', label: '1 h' },
  day: { key: 'D', label: '24 h' },
  week: { key: 'W', label: '7 d' },
};
const windowOf = (extra: Record<string, unknown>): UsageRange =>
  extra.window === 'day' || extra.window === 'week' ? extra.window : 'hour';

function summaryOf(lines: TriageLine[], view?: ListView): string {
  // no source answered: the board has nothing to judge by, and says that rather than "nothing needs attention"
  const window = windowOf(view?.state.extra ?? {});
  const input = view?.resources ? triageInput(view.resources) : undefined;
  const reading = input ? readingOf(input) : 'read';
  if (reading === 'unreadable')
    return `✕ Could not read the appliance: none of ${Object.keys(input ?? {}).length} sources answered (the lines below say why)`;
  if (reading === 'loading') return 'Reading the appliance…';
  const by = (s: Severity) => lines.filter((l) => l.severity === s).length;
  const [crit, warn, unknown] = [by('crit'), by('warn'), by('unknown')];
  const parts = [
    crit ? `${crit} critical` : '',
    warn ? `${warn} to watch` : '',
    unknown ? `${unknown} source${unknown === 1 ? '' : 's'} not read` : '',
  ].filter(Boolean);
  const attention =
    crit + warn
      ? `${crit + warn} thing${crit + warn === 1 ? '' : 's'} need${crit + warn === 1 ? 's' : ''} attention`
      : unknown
        ? 'Nothing needs attention in what was read'
        : 'Nothing needs attention';
  return `${attention}${parts.length ? ` · ${parts.join(' · ')}` : ''} · key rejections: ${WINDOWS[window].label} · Enter opens the cause`;
}

// Counts over a window of an hour or a day, and the lists that only name things, move slowly: they
// are asked for every 10 s rather than at every refresh, which keeps the idle board within 1% of a
// core (docs/performance.md); what is broken now (deployment, connectors, models) is asked for at
// every refresh, and `r` asks for everything. The routing is among the slow ones: it changes only
// by an operator's change (audited; this dashboard's own asks again at once), and a routed model
// that goes missing is seen in the models, asked at every refresh.
const SLOW = { everyMs: 10_000 };

/** The keys' rejections over the chosen window: totals only (a day's buckets keep the answer small). */
const rejectionsOver = (window: UsageRange): ResourceRequest => ({
  id: 'rejections',
  route: 'usage',
  query: { bucket: 'day' },
  rolling: { as: `rejections-${window}`, query: (now) => usageWindow(window, now) },
  ...SLOW,
});

const windowAction = (window: UsageRange): ScreenAction<TriageLine> => ({
  key: WINDOWS[window].key,
  label: window === 'week' ? '7 days' : window,
  mutates: false,
  // below the shell's : and r: a window is chosen now and then, not at every look
  hintPriority: 25,
  async run(ctx) {
    ctx.setExtra({ window });
  },
});

// One connection carries the polls in this order, answers in turn: the quick reads of what is
// broken now come first, the summaries over the journal and the audit trail (the slowest on a
// large appliance) last, so a slow one holds back as little as it can.
const resourcesFor = (window: UsageRange): ResourceRequest[] => [
  { id: 'deployment', route: 'deployment' },
  { id: 'connectors', route: 'listConnectors', query: { limit: 500 } },
  { id: 'models', route: 'listModels', query: { limit: 500 } },
  { id: 'routing', route: 'listRouting', query: { limit: 500 }, ...SLOW },
  // which keys have a budget, expire soon or nobody uses, asked of every key: the appliance may hold a
  // million (the usage answers name each key they count and carry its quota)
  { id: 'keys', route: 'listKeys', query: { has_budget: 'true', status: 'active', limit: 500 }, ...SLOW },
  {
    id: 'keysExpiring',
    route: 'listKeys',
    query: { ...listFilterQuery('expiring'), count: 'true', limit: EXPIRY_LINES },
    ...SLOW,
  },
  {
    id: 'keysUnused',
    route: 'listKeys',
    query: { ...listFilterQuery('30d'), count: 'true', limit: UNUSED_NAMED },
    ...SLOW,
  },
  {
    id: 'usage',
    route: 'usage',
    query: { bucket: 'hour' },
    rolling: { as: 'hour', query: (now) => usageWindow('hour', now) },
    ...SLOW,
  },
  ...(window === 'hour' ? [] : [rejectionsOver(window)]),
  { id: 'usageToday', route: 'usage', query: { bucket: 'day' }, rolling: { as: 'today', query: today }, ...SLOW },
  { id: 'budgetUsage', route: 'budgetUsage', ...SLOW },
  // denied entries by actor, each split by action: a 401's entries (auth.refused) apart from the 403s
  {
    id: 'denied',
    route: 'auditSummary',
    query: { outcome: 'denied', group_by: 'actor', then_by: 'action', limit: 500 },
    rolling: { as: '24h', query: lastDay },
    ...SLOW,
  },
  // the 401s: one entry per source and minute, each with its count (the newest page of them)
  {
    id: 'authRefused',
    route: 'listAudit',
    query: { action: 'auth.refused', limit: 100 },
    rolling: { as: '24h', query: lastDay },
    ...SLOW,
  },
  // the chain's state: the newest page of the trail checked as the audit screen checks it
  { id: 'auditNewest', route: 'listAudit', query: { limit: 50 }, ...SLOW },
  { id: 'auditCheckpoint', route: 'listAuditCheckpoints', query: { limit: 1 }, ...SLOW },
  {
    id: 'failuresByError',
    route: 'journalSummary',
    query: { status: 'failed', group_by: 'agent', then_by: 'error_code' },
    rolling: { as: '24h', query: lastDay },
    ...SLOW,
  },
  {
    id: 'failuresByTool',
    route: 'journalSummary',
    query: { status: 'failed', group_by: 'agent', then_by: 'tool' },
    rolling: { as: '24h', query: lastDay },
    ...SLOW,
  },
];

/**
 * The first screen: what needs attention, worst first. Each resource is polled on its own and
 * the board draws what has arrived, with a line for each resource still loading or unreadable.
 */
export const overviewScreen = defineScreen<TriageLine>({
  name: 'overview',
  title: 'Overview',
  ranges: { extra: 'window', values: Object.keys(WINDOWS) },
  resources: (state) => {
    // the chain's checks load now, before the first answers (they are not needed for the first frame)
    loadChainCheck();
    return resourcesFor(windowOf(state.extra));
  },
  list: {
    rowsFrom: (resources, context) => triage(triageInput(resources), { auditKey: context?.auditKey }),
    columns: [
      {
        header: 'State',
        value: (l) => `${markOf(BADGE[l.severity]?.tone)} ${BADGE[l.severity]?.text ?? '?'}`,
        tone: (l) => BADGE[l.severity]?.tone,
        sort: (l) => SEVERITY_ORDER[l.severity] ?? null,
        // not a fixed width: sorted by it, the header widens for its mark ("State ▲", not "Sta… ▲")
        minWidth: 6,
      },
      { header: 'What', value: (l) => l.what, minWidth: 12, maxWidth: 32 },
      { header: 'Reason', value: (l) => l.reason, grow: true, minWidth: 24, maxWidth: 400 },
      // whole or not at all: the reason says the count and its window too, so at 60 columns this is
      // left out and What keeps room to name the key or agent ("Key contrac…" named none)
      { header: 'Count · window', value: countText, minWidth: 14, maxWidth: 14 },
    ],
    rowKey: (l) => l.key,
    summary: summaryOf,
    // at 80 columns the reason is cut: the cursor's line says it whole
    cursorLine: (l) => `${l.what}: ${l.reason}`,
  },
  open: (l) => l.link,
  actions: [windowAction('hour'), windowAction('day'), windowAction('week')],
});
