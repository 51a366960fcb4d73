import type { JOURNAL_GROUPS, JournalEntry } from '../src/contract/index.js';
import { defineScreen, type ScreenUiState } from '../src/dashboard/kit/screen-api.js';
import { markOf, toneOf } from '../src/dashboard/kit/theme.js';
import { historyActions } from '../src/dashboard/history/actions.js';
import { groupAction, groupsOf } from '../src/dashboard/history/groups.js';
import { historyResources } from '../src/dashboard/history/query.js';
import { historyState, type HistorySpec } from '../src/dashboard/history/state.js';
import { emptyText, historySaysError, pageSummary, SERVER_ORDER } from '../src/dashboard/history/summary.js';
import { tableTime } from '../src/dashboard/kit/table-time.js';

const spec: HistorySpec = {
  kind: 'journal',
  title: 'agent journal',
  noun: 'journal entries',
  nounOne: 'journal entry',
  resourceId: 'journal',
  listRoute: 'listJournal',
  summaryRoute: 'journalSummary',
  groups: groupsOf<(typeof JOURNAL_GROUPS)[number]>({
    agent: 'Agent',
    status: 'Status',
    tool: 'Tool',
    error_code: 'Error code',
    channel: 'Channel',
  }),
  exportRoute: 'exportJournal',
  exportCapability: 'journal.export',
  filters: [
    { name: 'agent', label: 'Agent', hint: 'the exact agent name, e.g. hr-assistant; empty = any' },
    { name: 'status', label: 'Status', options: ['', 'running', 'succeeded', 'failed', 'cancelled'] },
    { name: 'channel', label: 'Channel', hint: 'the exact channel id, e.g. chan_web; empty = any' },
    { name: 'run_id', label: 'Run', hint: 'one run id (o on a row sets it); empty = every run' },
    { name: 'tool', label: 'Tool', hint: 'the exact tool name; empty = any' },
    { name: 'error_code', label: 'Error code', hint: 'e.g. tool_error, tool_timeout, budget_exceeded; empty = any' },
  ],
};

/** 850 ms, 12.3 s, 2.5 min; a running step has no duration yet. */
function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}
const count = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) ? '?' : n >= 10_000 ? `${+(n / 1000).toFixed(1)}k` : String(n);
/** The list is filtered to failures (by status or by an error code). */
const listsFailures = (state: ScreenUiState) => {
  const { filters } = historyState(state.extra);
  return filters.status === 'failed' || filters.error_code !== undefined;
};
const status = (e: JournalEntry) => `${markOf(toneOf(e.status))} ${e.status ?? '?'}`;

export const journalScreen = defineScreen<JournalEntry>({
  name: 'journal',
  title: 'Agent journal',
  saysError: historySaysError(spec),
  resources: (state) => historyResources(spec, state),
  list: {
    // Channel and run come last: on an 80-column terminal they are the ones left out (Enter shows them).
    columns: [
      { header: 'Time (UTC)', value: (e) => tableTime(e.started_at), width: 19 },
      // an agent's name stays readable at 80 columns (hr-assistant), before the token counts
      { header: 'Agent', value: (e) => e.agent, minWidth: 12, maxWidth: 20 },
      { header: 'Step', value: (e) => e.step, align: 'right', width: 4 },
      // listing failures, which tool failed is what is read: kept whole, the others give way first
      { header: 'Tool', value: (e) => e.tool, minWidth: 6, maxWidth: 24, keep: listsFailures },
      // whether a step failed is what the journal is read for: kept on a short line (60 columns) before the
      // step number and the tool; listing failures, where every row says failed, the tool is kept instead
      {
        header: 'Status',
        value: status,
        tone: (e) => toneOf(e.status),
        width: 11,
        keep: (state) => !listsFailures(state),
      },
      // the code only (Enter's detail has the message), what the journal is read for: narrowed last,
      // and never below 15 (budget_exceeded): at 80 columns Elapsed gives way to it (Enter shows it)
      {
        header: 'Error',
        value: (e) => e.error?.code,
        tone: (e) => (e.error ? 'bad' : undefined),
        minWidth: 15,
        maxWidth: 18,
        holdsWidth: true,
      },
      { header: 'Elapsed', value: (e) => duration(e.duration_ms), align: 'right', width: 7 },
      {
        header: 'Tok in/out',
        value: (e) => `${count(e.input_tokens)}/${count(e.output_tokens)}`,
        align: 'right',
        minWidth: 10,
        maxWidth: 13,
      },
      { header: 'Channel', value: (e) => e.channel, minWidth: 6, maxWidth: 16 },
      // shortened first, to a prefix that tells the page's runs apart (o and Enter use the whole id)
      { header: 'Run', value: (e) => e.run_id, grow: true, uniquePrefix: 8, givesWay: true, maxWidth: 30 },
    ],
    rowKey: (e) => e.id,
    empty: emptyText(spec),
    summary: (rows, view) => pageSummary(spec, rows, view),
    serverOrder: SERVER_ORDER,
    serverFilter: true,
  },
  actions: [
    ...historyActions<JournalEntry>(spec),
    groupAction<JournalEntry>(spec),
    {
      key: 'o',
      label: 'this run',
      mutates: false,
      needsRow: true,
      unavailable: (e) => (!e.run_id ? 'this entry has no run id' : null),
      async run(ctx, e) {
        const h = historyState(ctx.state.extra);
        if (h.filters.run_id === e.run_id)
          return {
            title: 'Already one run',
            tone: 'info',
            summary: [`The list shows only run ${e.run_id}; f changes the filters, c clears them.`],
          };
        // The whole run: a status, tool or time filter, or a `/` search, kept here would hide some of its steps.
        // Opened as a link so that the detail (where the hints offer o too) closes and the list shows the run.
        ctx.open({
          screen: 'journal',
          filter: '',
          extra: {
            ...ctx.state.extra,
            filters: { run_id: e.run_id },
            range: 'all',
            from: null,
            until: null,
            cursors: [],
            anchor: null,
          },
          select: e.id,
        });
      },
    },
  ],
});
