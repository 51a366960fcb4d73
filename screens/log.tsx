import { API_PREFIX, ROUTE_META, type RouteMeta } from '../src/contract/route-meta.js';
import type { ActionLogEntry } from '../src/store/action-log.js';
import { defineScreen } from '../src/ui/screen-api.js';
import { tableTime } from './shared/table-time.js';

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
      // what was changed is at the path's end: at 80 columns the request id gives way first
      { header: 'Path', value: shortPath, grow: true, minWidth: 44, maxWidth: 80 },
      {
        header: 'Status',
        value: statusText,
        tone: (e) => (e.status !== null && e.status < 400 ? 'ok' : 'bad'),
        align: 'right',
        width: 6,
      },
      { header: 'Request id', value: (e) => e.requestId ?? '–', minWidth: 10, maxWidth: 36 },
    ],
    rowKey: (e) => String(e.seq),
    empty: 'Nothing sent yet: changes and exports made from the dashboard show here, newest first.',
    summary: (rows) =>
      `${rows.length} request${rows.length === 1 ? '' : 's'} since the dashboard started · ` +
      `${rows.filter((e) => e.error !== null).length} failed · ⏎ the command`,
  },
  detail: (e) => ({
    time: isoOf(e.at),
    request: `${e.method} ${e.path}`,
    status: e.status ?? 'no answer',
    request_id: e.requestId ?? null,
    ...(e.error ? { error: e.error } : {}),
    command: e.command,
    audit: e.requestId ? 'a opens the audit entry it produced; c copies the command' : 'no request id: no audit entry',
  }),
  actions: [
    {
      key: 'a',
      label: 'audit entry',
      mutates: false,
      needsRow: true,
      unavailable: (e) =>
        !e.requestId ? 'the appliance sent no request id' : !auditActionOf(e) ? 'this request is not audited' : null,
      async run(ctx, e) {
        const action = auditActionOf(e)!;
        // the audit list has no request-id filter: the entry is found among the action's newest
        const page = await ctx.call('listAudit', { query: { action, limit: 200 } });
        const entry = (page.data ?? []).find((x) => x.request_id === e.requestId);
        if (!entry)
          return {
            title: 'No audit entry',
            tone: 'warn',
            summary: [`The newest ${action} entries have none for request ${e.requestId}.`],
          };
        ctx.open({ screen: 'audit', extra: { filters: { action } }, select: entry.id });
      },
    },
    {
      key: 'c',
      label: 'copy command',
      mutates: false,
      needsRow: true,
      async run(ctx, e) {
        ctx.copy(e.command);
        return { title: 'Command copied', summary: [e.command] };
      },
    },
  ],
});
