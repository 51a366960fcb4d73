import { ApiError, conflict, notFound } from '../errors.js';
import type { GroupFactory } from '../http/route-kit.js';
import { pageArray } from '../http/paging.js';
import { getJob, insertQueuedJob, listConnectors, listJobs } from '../ingest/job-store.js';
import { IngestRunner } from '../ingest/runner.js';

const idFrom = (body: unknown): string | null => {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>).connector_id : undefined;
  return typeof v === 'string' ? v.slice(0, 100) : null;
};

/** Connectors come only from the config file; ingestion runs real jobs against their sources. */
export const connectorsGroup: GroupFactory = ({ db, config, log }) => {
  const runner = new IngestRunner(db, config, log.child({ area: 'ingest' }));
  runner.recover();
  return {
    handlers: {
      listConnectors: {
        allow: 'any role',
        audit: null,
        run: ({ query }) => ({ body: pageArray(listConnectors(db, config), query, (c) => c.id) }),
      },
      ingest: {
        allow: 'mutating roles',
        audit: {
          action: 'connector.ingest',
          target: ({ body }) => {
            const id = idFrom(body);
            return { type: 'connector', id, name: config.connectors.find((c) => c.id === id)?.name ?? null };
          },
        },
        run: ({ body }, ctx) => {
          const connector = config.connectors.find((c) => c.id === body.connector_id);
          if (!connector) throw notFound(`no connector ${body.connector_id} is configured`);
          if (!connector.sources.some((s) => s.id === body.source_id)) {
            throw notFound(`connector ${connector.id} has no source ${body.source_id}`);
          }
          // 409, not 422: the request is valid and would succeed were the connector enabled in
          // the config, like the conventions' "quota on a revoked key".
          if (!connector.enabled)
            throw conflict(`connector ${connector.id} is disabled in the appliance configuration`);
          if (runner.isClosed) throw new ApiError(503, 'the server is shutting down');
          const jobId = insertQueuedJob(db, connector.id, body.source_id);
          ctx.afterCommit(() => runner.start(jobId));
          return {
            status: 202,
            body: { accepted: true, job_id: jobId },
            target: { type: 'connector', id: connector.id, name: connector.name },
            details: { source_id: body.source_id, job_id: jobId },
          };
        },
      },
      listJobs: { allow: 'any role', audit: null, run: ({ query }) => ({ body: listJobs(db, query) }) },
      getJob: {
        allow: 'any role',
        audit: null,
        run: ({ params }) => {
          const job = getJob(db, params.job_id);
          if (!job) throw notFound(`no job ${params.job_id}`);
          return { body: job };
        },
      },
    },
    close: () => runner.close(),
  };
};
