import type { Connector, Job } from '../src/contract/index.js';
import { defineScreen, type ScreenUiState } from '../src/dashboard/kit/screen-api.js';
import { toneOf } from '../src/dashboard/kit/theme.js';
import { tableTime } from '../src/dashboard/kit/table-time.js';

/** The newest jobs shown: enough to see a pattern of failures without paging. */
const JOBS_SHOWN = 100;

/** A job with its connector's and source's names, which the job itself only has as ids. */
type JobRow = Job & { connector_name: string | null; source_name: string | null };

const connectorOf = (state: Pick<ScreenUiState, 'extra'>) =>
  typeof state.extra.connector_id === 'string' && state.extra.connector_id !== '' ? state.extra.connector_id : null;

const connectorsOf = (data: unknown): Connector[] => {
  const list = (data as { data?: unknown } | undefined)?.data;
  return Array.isArray(list) ? (list as Connector[]) : [];
};

/** Milliseconds from start to finish, or null (not started or not finished). */
function tookMs(j: Job): number | null {
  const ms = j.started_at && j.finished_at ? Date.parse(j.finished_at) - Date.parse(j.started_at) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

function took(j: Job): string {
  const ms = tookMs(j);
  if (ms === null) return '–';
  return ms < 1000 ? `${ms} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 60_000).toFixed(1)} min`;
}

/**
 * Ingestion jobs, newest first: J on a connector opens this list on its jobs, so a failed
 * sync's reason, and the jobs before it, read without starting a new ingestion.
 */
export const jobsScreen = defineScreen<JobRow>({
  name: 'jobs',
  title: 'Ingestion jobs',
  resources: (state) => {
    const id = connectorOf(state);
    return [
      { id: 'jobs', route: 'listJobs', query: { limit: JOBS_SHOWN, ...(id ? { connector_id: id } : {}) } },
      { id: 'connectors', route: 'listConnectors', query: { limit: 500 } },
    ];
  },
  list: {
    rows: (data, related) => {
      const connectors = connectorsOf(related.connectors);
      const jobs = (data as { data?: unknown }).data;
      return (Array.isArray(jobs) ? (jobs as Job[]) : []).map((j) => {
        const c = connectors.find((x) => x.id === j.connector_id);
        return {
          ...j,
          connector_name: c?.name ?? null,
          source_name: c?.sources.find((s) => s.id === j.source_id)?.name ?? null,
        };
      });
    },
    // The error comes before the names: at 80 columns it is what stays (Enter shows every field).
    columns: [
      { header: 'Created (UTC)', value: (j) => tableTime(j.created_at), width: 19 },
      // the connector's name before what happened to it: at 80 columns the source and the time taken go first
      { header: 'Connector', value: (j) => j.connector_name ?? j.connector_id, minWidth: 12, maxWidth: 22 },
      { header: 'State', value: (j) => j.state, tone: (j) => toneOf(j.state), width: 9, keep: true },
      { header: 'Items', value: (j) => j.items ?? '–', align: 'right', width: 6 },
      { header: 'Error', value: (j) => j.error ?? '', grow: true, minWidth: 20 },
      { header: 'Source', value: (j) => j.source_name ?? j.source_id, minWidth: 8, maxWidth: 20 },
      // by the time taken, not its text ("1.2 s" is longer than "270 ms")
      { header: 'Took', value: took, sort: tookMs, align: 'right', width: 7 },
    ],
    rowKey: (j) => j.job_id,
    empty: 'No ingestion job yet: i on the connectors screen starts one.',
    summary: (rows, view) => {
      const id = view ? connectorOf(view.state) : null;
      const c = id ? connectorsOf(view?.resources?.connectors?.data).find((x) => x.id === id) : undefined;
      const whose = id ? `Jobs of ${c?.name ?? id}${c ? ` · now ${c.state}` : ''}` : 'Jobs of every connector';
      const failed = rows.filter((j) => j.state === 'failed').length;
      const more =
        (view?.data as { has_more?: unknown } | undefined)?.has_more === true
          ? `the ${rows.length} newest`
          : `${rows.length}`;
      return `${whose} · ${more} · ${failed} failed`;
    },
  },
  actions: [
    {
      intent: 'clear-filter',
      label: 'all connectors',
      mutates: false,
      // without a connector chosen (J on one) the list already has every connector's jobs
      unavailable: (_row, state) => (connectorOf(state) ? null : 'already showing every connector'),
      async run(ctx) {
        ctx.setExtra({ connector_id: null }, { top: true });
      },
    },
  ],
});
