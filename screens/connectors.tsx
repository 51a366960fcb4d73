import type { Connector, Job } from '../src/contract/index.js';
import { ApiError, TransportError } from '../src/dashboard/kit/errors.js';
import { defineScreen, type ActionContext } from '../src/dashboard/kit/screen-api.js';
import { errorLines } from '../src/dashboard/kit/error-lines.js';
import { ago } from '../src/dashboard/kit/format.js';
import { timeKey } from '../src/dashboard/kit/sort.js';
import { toneOf } from '../src/dashboard/kit/theme.js';
import { auditHistoryAction } from '../src/dashboard/kit/audit-history.js';
import { CONNECTOR_ERRORS_DOC, connectorErrorHint } from '../src/dashboard/rules/connector-errors.js';

const FINAL = new Set(['succeeded', 'failed']);

/** Its newest succeeded sync, as the appliance says it; an appliance from before says nothing of it. */
function lastSuccessText(c: Connector): string {
  if (c.last_success === undefined) return 'not said by this appliance (J lists its jobs)';
  if (c.last_success === null) return 'never (no successful job on record)';
  const { at, job_id } = c.last_success;
  return `${at} (${ago(at)}), job ${job_id}`;
}

/**
 * Enter on a connector: the connector itself, its last error whole and, for an error the appliance
 * is known to produce, what to do and the section of docs/connector-errors.md that says more.
 */
function connectorDetail(c: Connector): Record<string, unknown> {
  const error = c.last_sync?.status === 'failed' ? c.last_sync.error : null;
  const known = connectorErrorHint(error);
  return {
    connector: `${c.name} (${c.id})`,
    kind: c.kind,
    state: c.state,
    'last sync': c.last_sync ? `${c.last_sync.at} (${lastSync(c)}), job ${c.last_sync.job_id}` : 'never',
    'last success': lastSuccessText(c),
    'last error': error ?? (c.last_sync?.status === 'failed' ? 'the appliance gave no reason' : 'none'),
    ...(known
      ? {
          'error code': known.code,
          'what to do': known.hint,
          'read more': `${CONNECTOR_ERRORS_DOC}, section ${known.code}`,
        }
      : {}),
    'RBAC labels': (c.rbac_labels ?? []).join(', ') || 'none',
    sources: (c.sources ?? []).map((s) => `${s.name} (${s.id})`).join(', ') || 'none',
    next: 'J its jobs · i ingest · h history · Esc back',
  };
}

function lastSync(c: Connector): string {
  const s = c.last_sync;
  if (!s) return 'never';
  return s.status === 'failed' ? `${ago(s.at)}, FAILED` : `${ago(s.at)}, ${s.items ?? '?'} items`;
}

function jobLines(job: Job, connector: string, source: string): string[] {
  return [
    `${job.state.toUpperCase()}  ${connector} / ${source}`,
    `job       ${job.job_id}`,
    `items     ${job.items ?? (FINAL.has(job.state) ? '–' : 'counting…')}`,
    `started   ${job.started_at ?? 'not yet'}`,
    `finished  ${job.finished_at ?? '–'}`,
    ...(job.error ? [`error     ${job.error}`] : []),
  ];
}

/**
 * How long following a job keeps trying through a stalled or unreachable appliance: the job
 * runs on the appliance whatever happens to this connection. Exported for tests.
 */
export const followPolicy = { patienceMs: 120_000, firstRetryMs: 500, maxRetryMs: 8_000 };

/** A failure to read the job that may pass: no answer, a dropped connection, a busy or restarting appliance. */
function passing(err: unknown): boolean {
  if (err instanceof TransportError) return ['timeout', 'refused', 'reset', 'dns', 'other'].includes(err.kind);
  return err instanceof ApiError && (err.status === 429 || err.status >= 500);
}

type Followed = { job: Job; lost?: undefined } | { job: Job | null; lost: string } | null;

/**
 * Follows a job until it finishes or the user stops following (Esc: null). Reading the job may
 * fail for a while (a stall, a restart): it retries with backoff, and after `patienceMs` without
 * an answer (or a failure that will not pass) it reports why it lost track; the job itself was
 * started either way.
 */
async function followJob(ctx: ActionContext, jobId: string, connector: string, source: string): Promise<Followed> {
  const p = ctx.progress({ title: `Ingestion: ${connector}`, lines: [`QUEUED  job ${jobId}`] });
  let job: Job | null = null;
  let failingSince: number | null = null;
  let delay = followPolicy.firstRetryMs;
  let lost: string | null = null;
  while (!p.signal.aborted) {
    try {
      job = await ctx.call('getJob', { params: { job_id: jobId }, signal: p.signal });
    } catch (err) {
      if (p.signal.aborted) break;
      const e = errorLines(err);
      const why = `${e.headline}${e.reference ? ` (${e.reference})` : ''}`;
      failingSince ??= Date.now();
      const waited = Date.now() - failingSince;
      if (!passing(err) || waited >= followPolicy.patienceMs) {
        lost = why;
        break;
      }
      p.update({
        lines: [
          ...(job ? jobLines(job, connector, source) : [`QUEUED  job ${jobId}`]),
          '',
          `▲ cannot read the job's state: ${e.headline}`,
          `  retrying for ${Math.ceil((followPolicy.patienceMs - waited) / 1000)} s more; the job runs on the appliance meanwhile`,
        ],
        tone: 'warn',
      });
      await ctx.sleep(delay, p.signal);
      delay = Math.min(delay * 2, followPolicy.maxRetryMs);
      continue;
    }
    failingSince = null;
    delay = followPolicy.firstRetryMs;
    p.update({ lines: jobLines(job, connector, source), fraction: null, tone: toneOf(job.state) });
    if (FINAL.has(job.state)) break;
    await ctx.sleep(Math.min(1000, ctx.refreshMs), p.signal);
  }
  const stopped = p.signal.aborted;
  p.close();
  if (stopped) return null;
  return lost !== null ? { job, lost } : { job: job! };
}

export const connectorsScreen = defineScreen<Connector>({
  name: 'connectors',
  title: 'Connectors',
  resources: () => [{ id: 'connectors', route: 'listConnectors', query: { limit: 500 } }],
  list: {
    rows: (data) => {
      const connectors = (data as { data?: unknown }).data;
      return Array.isArray(connectors) ? (connectors as Connector[]) : [];
    },
    columns: [
      { header: 'Name', value: (c) => c.name, grow: true, minWidth: 20, maxWidth: 32 },
      { header: 'Kind', value: (c) => c.kind, maxWidth: 20 },
      { header: 'State', value: (c) => c.state, tone: (c) => toneOf(c.state), keep: true },
      {
        header: 'Last sync',
        value: lastSync,
        sort: (c) => timeKey(c.last_sync?.at),
        minWidth: 21,
        maxWidth: 34,
        keep: true,
      },
      { header: 'RBAC labels', value: (c) => (c.rbac_labels ?? []).join(', '), maxWidth: 30 },
      { header: 'Sources', value: (c) => (c.sources ?? []).length, align: 'right', width: 7 },
    ],
    rowKey: (c) => c.id,
    // a failed sync's reason, which no column shows, under the table: why "error" without Enter
    cursorLine: (c) => {
      const s = c.last_sync;
      return s?.status === 'failed'
        ? `${c.name}: last sync failed ${ago(s.at)}: ${s.error ?? 'the appliance gave no reason'}`
        : `${c.name}: ${c.state}`;
    },
    empty: 'No connector is configured on this appliance (connectors are set up on the appliance itself).',
    summary: (rows) => {
      const by = (s: string) => rows.filter((c) => c.state === s).length;
      const notes = ['degraded', 'error', 'syncing', 'disabled'].filter((s) => by(s) > 0).map((s) => `${by(s)} ${s}`);
      return `${rows.length} connector${rows.length === 1 ? '' : 's'}${notes.length ? ` · ${notes.join(' · ')}` : ''}`;
    },
  },
  // Enter shows the connector, as Enter shows a row elsewhere; J opens its jobs
  detail: connectorDetail,
  actions: [
    {
      key: 'J',
      label: 'jobs',
      mutates: false,
      needsRow: true,
      async run(ctx, c) {
        ctx.open({ screen: 'jobs', extra: { connector_id: c.id } });
      },
    },
    {
      key: 'i',
      label: 'ingest',
      mutates: true,
      capability: 'connector.ingest',
      needsRow: true,
      unavailable: (c) => ((c.sources ?? []).length === 0 ? 'this connector has no sources' : null),
      async run(ctx, connector) {
        const source = await ctx.pick({
          title: `Ingest from ${connector.name}`,
          message: 'Choose the source to ingest:',
          items: connector.sources.map((s) => ({ value: s, label: s.name, hint: s.id })),
        });
        if (!source) return;
        const accepted = await ctx.call('ingest', { body: { connector_id: connector.id, source_id: source.id } });
        ctx.refresh();
        const followed = await followJob(ctx, accepted.job_id, connector.name, source.name);
        if (!followed) {
          return {
            title: 'Ingestion started',
            summary: [
              `Job ${accepted.job_id} is running; you stopped following it.`,
              "The connector's last sync updates when it completes.",
            ],
          };
        }
        // The 202 came: the ingestion started. Losing sight of it is not its failure.
        if (followed.lost !== undefined) {
          return {
            title: 'Ingestion started; could not follow it',
            tone: 'warn',
            summary: [
              `Started job ${accepted.job_id}; could not follow it: ${followed.lost}.`,
              ...(followed.job ? [`Last seen ${followed.job.state}.`] : []),
              "The connectors screen shows its state: the connector's last sync updates when it completes.",
            ],
          };
        }
        const job = followed.job;
        return {
          title: job.state === 'succeeded' ? 'Ingestion finished' : 'Ingestion failed',
          tone: job.state === 'succeeded' ? 'ok' : 'bad',
          summary: jobLines(job, connector.name, source.name),
        };
      },
    },
    auditHistoryAction<Connector>((c) => ({ type: 'connector', search: c.id })),
  ],
});
