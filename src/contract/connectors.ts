import * as z from 'zod';
import type { AreaRoutes } from './route-meta.js';
import { Timestamp, page, PageQuery } from './common.js';

export const CONNECTOR_KINDS = [
  'document-sharing',
  'office-suite',
  'crm',
  'accounting',
  'relational-database',
] as const;
export const ConnectorKind = z.enum(CONNECTOR_KINDS);
export const ConnectorState = z.enum(['healthy', 'syncing', 'degraded', 'error', 'disabled']);

export const LastSync = z.object({
  at: Timestamp,
  status: z.enum(['succeeded', 'failed']),
  job_id: z.string(),
  items: z.number().int().min(0),
  /** the failed job's reason, in words; null when the sync succeeded */
  error: z.string().nullable(),
});

export const Connector = z.object({
  id: z.string(),
  name: z.string(),
  kind: ConnectorKind,
  state: ConnectorState,
  last_sync: LastSync.nullable(),
  /** its newest succeeded sync, however many failed since; null: none on record (absent from an older appliance) */
  last_success: z.object({ at: Timestamp, job_id: z.string() }).nullable().optional(),
  rbac_labels: z.array(z.string()),
  sources: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type Connector = z.infer<typeof Connector>;
export const ConnectorList = page(Connector);

export const IngestRequest = z.strictObject({
  connector_id: z.string().min(1).max(100),
  source_id: z.string().min(1).max(100),
});
export type IngestRequest = z.infer<typeof IngestRequest>;
export const IngestAccepted = z.object({ accepted: z.literal(true), job_id: z.string() });

export const JobState = z.enum(['queued', 'running', 'succeeded', 'failed']);
export const Job = z.object({
  job_id: z.string(),
  connector_id: z.string(),
  source_id: z.string(),
  state: JobState,
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  /** Items actually read by the job; null until it finishes. */
  items: z.number().int().min(0).nullable(),
  error: z.string().nullable(),
});
export type Job = z.infer<typeof Job>;
export const JobParams = z.strictObject({ job_id: z.string().min(1).max(100) });
export const JobList = page(Job);
/** Ingestion jobs, newest first, optionally of one connector, one source or one state. */
export const JobsQuery = PageQuery.extend({
  connector_id: z.string().min(1).max(100).optional(),
  source_id: z.string().min(1).max(100).optional(),
  state: JobState.optional(),
});
export type JobsQuery = z.infer<typeof JobsQuery>;

/** The schemas of this area's routes (routes.ts joins them with route-meta.ts). */
export const connectorRoutes = {
  listConnectors: { query: PageQuery, response: ConnectorList },
  ingest: { body: IngestRequest, response: IngestAccepted },
  getJob: { params: JobParams, response: Job },
  listJobs: { query: JobsQuery, response: JobList },
} as const satisfies AreaRoutes<'connectors'>;
