import { API_PREFIX, ROUTE_META, type RouteMeta } from '../src/contract/route-meta.js';
import type { ActionLogEntry } from '../src/dashboard/kit/action-log.js';
import type { AuditEntry } from '../src/contract/index.js';
import { requestAuditQuery, requestEntry } from '../src/dashboard/kit/request-audit.js';
import { credentialNote } from '../src/dashboard/kit/action-log.js';
import { defineScreen, type ActionContext } from '../src/dashboard/kit/screen-api.js';
import { tableTime } from '../src/dashboard/kit/table-time.js';
import { thousands } from '../src/text/thousands.js';

/** What the appliance audits a route as: its contract action; an export is audited as `KIND.export`. */
const EXPORT_ACTIONS: Partial<Record<string, string>> = {
  exportAudit: 'audit.export',
  exportJournal: 'journal.export',
};
const auditActionOf = (e: ActionLogEntry) =>
  EXPORT_ACTIONS[e.route] ?? (ROUTE_META as Record<string, RouteMeta>)[e.route]?.action ?? null;

const statusText = (e: ActionLogEntry) => (e.status === null ? 'none' : String(e.status));
const isoOf = (ms: number) => new Date(ms).toISOString();
/** The path under the API's prefix, which every request shares (Enter shows it whole). */
const shortPath = (e: ActionLogEntry) => e.path.slice(e.path.indexOf(API_PREFIX) + API_PREFIX.length) || e.path;

function copyCommand(ctx: ActionContext, e: ActionLogEntry) {
  ctx.copy(e.command);
  return Promise.resolve({ title: 'Command copied', summary: [e.command, '', credentialNote(e.command)] });
}

/** "Status      200": a label and its value, the values in one column. */
const labelled = (label: string, value: unknown) => `${label.padEnd(11)} ${String(value)}`;

const requestLines = (e: ActionLogEntry) => [
  labelled('Request', `${e.method} ${e.path}`),
  labelled('Sent', isoOf(e.at)),
  labelled('Status', `${e.status ?? 'no answer'}${e.error ? ` · ${e.error}` : ''}`),
  labelled('Request id', e.requestId ?? 'none'),
  // under its label, indented: the dialog wraps an indented line indented, a long command (a body, a
  // URL) then reads as one block rather than running back to the dialog's edge
  'Command',
  `  ${e.command}`,
  `  ${credentialNote(e.command)}`,
];

const targetText = (t: AuditEntry['target'] | undefined) =>
  t?.name ? `${t.name} (${[t.type, t.id].filter(Boolean).join(' ')})` : `${t?.type ?? '?'} ${t?.id ?? ''}`.trim();

/** The entry as the audit screen shows it, with its place in the hash chain. */
const entryLines = (a: AuditEntry) => [
  `Audit entry #${thousands(a.seq)} (${a.id})`,
  labelled('  Time', a.at),
  labelled('  Action', a.action),
  labelled('  Target', targetText(a.target)),
  labelled('  Outcome', `${a.outcome}, HTTP ${a.status}`),
  labelled('  Actor', `${a.actor?.subject ?? '?'} (${a.actor?.role ?? 'no role'})`),
  labelled('  Hash', a.hash),
];

/** The audit entry the request produced, or why there is none, in words. */
async function auditEntryOf(ctx: ActionContext, e: ActionLogEntry): Promise<{ entry: AuditEntry } | { why: string }> {
  if (e.status === null) return { why: `No audit entry: no answer came (${e.error ?? 'no connection'}).` };
  if (!e.requestId) return { why: 'No audit entry can be matched: the appliance sent no request id with its answer.' };
  const action = auditActionOf(e);
  if (!action) return { why: 'No audit entry: the appliance does not audit this request.' };
  const entry = requestEntry(
    await ctx.call('listAudit', { query: requestAuditQuery(e.requestId) }),
    e.requestId,
    action,
  );
  if (entry) return { entry };
  return {
    why:
      e.status >= 400
        ? `No audit entry: the appliance refused the request (${e.status}) before it was audited.`
        : `No audit entry for request ${e.requestId}: the appliance has none (written elsewhere, or not kept).`,
  };
}

export const logScreen = defineScreen<ActionLogEntry>({
  name: 'log',
  title: 'Action log',
  resources: () => [],
  list: {
    fromActionLog: true,
    columns: [
      // the time of day: the log holds one run of the dashboard (Enter shows the date)
      { header: 'UTC', value: (e) => tableTime(isoOf(e.at)).slice(11), sort: (e) => e.at, width: 8 },
      { header: 'Method', value: (e) => e.method, width: 6 },
      // what was changed is at the path's end, and whether it worked: both kept, the request id
      // then the method give way first (Enter shows them)
      { header: 'Path', value: shortPath, grow: true, minWidth: 36, maxWidth: 80, keep: true },
      {
        header: 'Status',
        value: statusText,
        tone: (e) => (e.status !== null && e.status < 400 ? 'ok' : 'bad'),
        align: 'right',
        width: 6,
        keep: true,
      },
      { header: 'Request id', value: (e) => e.requestId ?? '–', minWidth: 10, maxWidth: 36 },
    ],
    rowKey: (e) => String(e.seq),
    empty: 'Nothing sent yet: changes and exports made from the dashboard show here, newest first.',
    summary: (rows) =>
      `${rows.length} request${rows.length === 1 ? '' : 's'} since the dashboard started · ` +
      `${rows.filter((e) => e.error !== null).length} failed · ⏎ its audit entry`,
  },
  // the audit entry must be fetched: Enter runs `a`, which shows it beside the request
  enter: 'audit entry',
  actions: [
    {
      intent: 'history',
      label: 'audit entry',
      mutates: false,
      needsRow: true,
      async run(ctx, e) {
        const found = await auditEntryOf(ctx, e);
        const choices = [
          ...('entry' in found ? [{ key: 'a', label: 'audit screen' }] : []),
          { key: 'y', label: 'copy command' },
        ];
        const choice = await ctx.message({
          title: `${e.method} ${shortPath(e)}`,
          tone: 'entry' in found ? undefined : 'warn',
          lines: [...requestLines(e), '', ...('entry' in found ? entryLines(found.entry) : [found.why])],
          choices,
        });
        if (choice === 'a' && 'entry' in found)
          ctx.open({ screen: 'audit', extra: { filters: { request_id: e.requestId } }, select: found.entry.id });
        if (choice === 'y') return copyCommand(ctx, e);
      },
    },
    {
      key: 'y',
      label: 'copy command',
      mutates: false,
      needsRow: true,
      run: copyCommand,
    },
  ],
});
