import type { AUDIT_GROUPS, AuditEntry } from '../src/contract/index.js';
import { isRequestId } from '../src/contract/request-id.js';
import { defineScreen, type ListView, type Tone } from '../src/dashboard/kit/screen-api.js';
import { ROUTE_META, type RouteMeta } from '../src/contract/route-meta.js';
import { markOf, toneOf } from '../src/dashboard/kit/theme.js';
import { briefChangeOf, routingChangeOf } from '../src/dashboard/kit/audit-change.js';
import { historyActions } from '../src/dashboard/history/actions.js';
import { groupAction, groupsOf } from '../src/dashboard/history/groups.js';
import { historyResources } from '../src/dashboard/history/query.js';
import { searchedState, type HistorySpec } from '../src/dashboard/history/state.js';
import { emptyText, historySaysError, pageSummary, SERVER_ORDER } from '../src/dashboard/history/summary.js';
import { shortTableTime, tableTime } from '../src/dashboard/kit/table-time.js';
import { chainBroken, chainCheckOf, chainText, loadChainCheck } from '../src/dashboard/audit-trail/audit-chain.js';
import { verifyTrailAction } from '../src/dashboard/audit-trail/audit-chain-verify.js';
import { evidenceAction } from '../src/dashboard/audit-trail/audit-chain-evidence.js';

/** Actions the appliance audits besides each mutating route's own (src/server: governance/export.ts, app.ts). */
const OTHER_ACTIONS: Record<string, string> = {
  'audit.export': 'Audit trail exported (csv or jsonl)',
  'journal.export': 'Agent journal exported (csv or jsonl)',
  'settings.update': 'A write to the read-only settings (always refused, 405)',
  'auth.refused': 'Requests refused as unauthenticated (401), counted per source address and minute',
  'audit.key.rotate': "The audit trail's signing key replaced (on the host, or found changed at start)",
  'audit.chain.migrate': 'The trail written before the hash chain, chained once at the upgrade',
};

/** Every action the audit trail can hold, with what it records: the pick list of the action filter. */
export function knownActions(): { value: string; hint: string }[] {
  // every audited route: the mutations, and the seal (which any role may make)
  const routes = Object.values(ROUTE_META as Record<string, RouteMeta>).filter((m) => m.action);
  return [
    ...routes.map((m) => ({ value: m.action!, hint: m.summary })),
    ...Object.entries(OTHER_ACTIONS).map(([value, hint]) => ({ value, hint })),
  ];
}

const spec: HistorySpec = {
  kind: 'audit',
  title: 'audit trail',
  noun: 'audit entries',
  nounOne: 'audit entry',
  resourceId: 'audit',
  listRoute: 'listAudit',
  summaryRoute: 'auditSummary',
  groups: groupsOf<(typeof AUDIT_GROUPS)[number]>({
    outcome: 'Outcome',
    action: 'Action',
    actor: 'Actor',
    target_type: 'Target type',
  }),
  exportRoute: 'exportAudit',
  exportCapability: 'audit.export',
  filters: [
    { name: 'actor', label: 'Actor', hint: 'the exact subject, e.g. alice.martin@northwind.example; empty = anyone' },
    {
      name: 'action',
      label: 'Action',
      // one line in the form at 120 columns: the key that picks from the list is not cut off
      hint: 'exact or gateway.key.* (a prefix); empty = any; A on the list picks one',
      known: knownActions(),
    },
    { name: 'outcome', label: 'Outcome', options: ['', 'success', 'denied', 'failed'] },
    { name: 'target_type', label: 'Target type', hint: 'exact, e.g. gateway_key, model, connector; empty = any' },
    {
      name: 'request_id',
      label: 'Request id',
      hint: 'the entry one request produced (req_…, as :log shows it); empty = any',
      validate: (v) => (v === '' || isRequestId(v) ? null : 'a request id: letters, digits, _ . : - (at most 100)'),
    },
  ],
};

const actor = (e: AuditEntry) => `${e.actor?.subject ?? '?'} (${e.actor?.role ?? 'no role'})`;
/**
 * "gateway key reporting-batch": the name the target had when the entry was written, else its id;
 * a routing change or an activation says what it changed instead, from → to, briefly
 * ("summarize: ↻active → mistral-7b"), so that the list answers "from what to what" without Enter.
 */
const target = (e: AuditEntry) =>
  briefChangeOf(e) ?? [e.target?.type?.replace(/_/g, ' '), e.target?.name ?? e.target?.id].filter(Boolean).join(' ');
const outcome = (e: AuditEntry) => `${markOf(toneOf(e.outcome))} ${e.outcome ?? '?'}`;

/** The newest signed checkpoint and the keys to check it (polled with the page). */
const CHECKPOINT_RESOURCE = { id: 'audit-checkpoint', route: 'listAuditCheckpoints', query: { limit: 1 } } as const;

/**
 * The chain's state: the page read checks out and the newest checkpoint verifies, or "CHAIN
 * BROKEN at #N" in words with the bad tone's mark, which goes first (the line is cut at the
 * terminal's edge, and a break must not be what is cut). Checked on the answers as served, never
 * on the rows shown (sanitized and cut for the terminal).
 */
function chainSummary(rows: AuditEntry[], view: ListView | undefined): { text: string; tone: Tone } {
  if (!view || !rows.length) return { text: '', tone: 'muted' };
  // no filter and no search: the page is a stretch of the trail, so a gap in it is entries removed
  const whole = Object.keys(searchedState(view.state).filters).length === 0;
  const check = chainCheckOf(
    view.resources?.[spec.resourceId]?.served,
    view.resources?.[CHECKPOINT_RESOURCE.id]?.served,
    {
      whole,
      auditKey: view.auditKey,
    },
  );
  if (!check) return { text: 'chain: checking…', tone: 'muted' };
  const text = chainText(check, Date.now());
  if (chainBroken(check)) return { text: `${markOf('bad')} ${text}`, tone: 'bad' };
  return check.ok ? { text, tone: 'muted' } : { text: `${markOf('warn')} ${text}`, tone: 'warn' };
}

export const auditScreen = defineScreen<AuditEntry>({
  name: 'audit',
  title: 'Audit trail',
  saysError: historySaysError(spec),
  resources: (state) => {
    loadChainCheck();
    return [...historyResources(spec, state), CHECKPOINT_RESOURCE];
  },
  list: {
    // HTTP comes last: below about 82 columns it is the one left out (the outcome says the same; Enter shows it).
    // On a short line (60 columns) the time goes to the minute without the year, so that who did what and
    // whether it was denied or failed stay on every row; the line under the table has the time whole.
    columns: [
      {
        header: 'Time (UTC)',
        value: (e) => tableTime(e.at),
        width: 19,
        short: { value: (e) => shortTableTime(e.at), width: 11, header: 'UTC' },
      },
      // the actor gives way to the target: a change's "from → to" is what the list is read for; what was
      // done is kept whole (the line under the table says the rest for the cursor row)
      { header: 'Actor (role)', value: actor, grow: true, minWidth: 12, maxWidth: 48, givesWay: true },
      { header: 'Action', value: (e) => e.action, minWidth: 18, maxWidth: 28, keep: true },
      { header: 'Target', value: target, minWidth: 8, maxWidth: 46, holdsWidth: true },
      // what happened to each request is what an auditor reads the trail for: kept on a short line
      { header: 'Outcome', value: outcome, tone: (e) => toneOf(e.outcome), width: 9, keep: true },
      { header: 'HTTP', value: (e) => e.status, align: 'right', width: 4 },
    ],
    rowKey: (e) => e.id,
    empty: emptyText(spec),
    summary: (rows, view) => pageSummary(spec, rows, view),
    // the chain's state on a line of its own, so that no terminal width cuts it off
    status: (rows, view) => {
      const chain = chainSummary(rows, view);
      return chain.text ? chain : null;
    },
    serverOrder: SERVER_ORDER,
    serverFilter: true,
    // a narrow terminal cuts the Target cell: the cursor's is said whole under the table (a change's from → to)
    cursorLine: (e) => `${e.action ?? '?'} ${target(e)} · by ${actor(e)}`,
  },
  // the list's Target cell is cut on a narrow terminal: Enter says the change whole, first
  detail: (e) => {
    const change = routingChangeOf(e) ?? briefChangeOf(e);
    return change ? { change, ...e } : e;
  },
  actions: [
    ...historyActions<AuditEntry>(spec),
    groupAction<AuditEntry>(spec),
    verifyTrailAction<AuditEntry>(),
    evidenceAction<AuditEntry>(),
  ],
});
