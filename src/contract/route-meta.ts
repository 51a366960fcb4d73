import type * as z from 'zod';

/**
 * Every route of the API without its schemas: what it is called, its method and path, whether it
 * changes state and under which audit action, and the contract module (its area) that holds its
 * schemas. routes.ts joins the two. This file loads no zod, so the dashboard knows every route when
 * it starts and builds a route's schemas when it first calls it (src/client/route-schemas.ts): the
 * first frame builds only the schemas it shows (docs/performance.md). The server
 * serves each route from its area file (src/server/routes), which declares the route's role rule and
 * audit action beside its handler, typed equal to `mutates` and `action` here.
 */
export const API_PREFIX = '/v1/admin';

/** The contract modules, by the part of the API they describe. */
export type RouteArea = 'identity' | 'connectors' | 'channels' | 'gateway' | 'models' | 'governance' | 'deployment';

export interface RouteMeta {
  /** operationId, also the name the client calls it by */
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  /** relative to /v1/admin, fastify style (`:id`) */
  path: string;
  summary: string;
  /**
   * the capability / audit action; set on every mutation, and on a route that changes nothing but
   * the audit trail (the seal), which is audited the same way but allowed to every role
   */
  action?: string;
  /** true when the route changes state: needs a mutating role, is audited */
  mutates: boolean;
  /**
   * a read that writes an audit entry of its own under this action (an export): like a route with an
   * `action`, its caller's rate is limited (docs/operations.md); unlike one, it needs no mutating role
   * and is not wrapped in a transaction with its entry (the export writes it)
   */
  auditedAs?: string;
  /** success status */
  status: number;
  /** number in the spec's endpoint table, when it has one */
  spec?: number;
  /** the contract module with its schemas */
  area: RouteArea;
  /**
   * the answer is checked for integrity (the audit chain): the client keeps it as it came off the
   * wire (`served`) beside the sanitized data it shows, and the checks read only that
   */
  checked?: true;
}

/** A route's schemas; a `file` response is a streamed download. */
export interface RouteSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response: z.ZodType | 'file';
}

const m = <const T extends RouteMeta>(d: T) => d;

export const ROUTE_META = {
  session: m({
    name: 'session',
    method: 'GET',
    path: '/session',
    summary: 'Who the caller is and what it may do',
    mutates: false,
    status: 200,
    area: 'identity',
  }),
  listConnectors: m({
    spec: 1,
    name: 'listConnectors',
    method: 'GET',
    path: '/connectors',
    summary: 'Connector status',
    mutates: false,
    status: 200,
    area: 'connectors',
  }),
  ingest: m({
    spec: 2,
    name: 'ingest',
    method: 'POST',
    path: '/connectors',
    summary: 'Start ingestion for a configured connector source',
    mutates: true,
    action: 'connector.ingest',
    status: 202,
    area: 'connectors',
  }),
  getJob: m({
    name: 'getJob',
    method: 'GET',
    path: '/jobs/:job_id',
    summary: 'One ingestion job',
    mutates: false,
    status: 200,
    area: 'connectors',
  }),
  listJobs: m({
    name: 'listJobs',
    method: 'GET',
    path: '/jobs',
    summary: 'Ingestion jobs, newest first',
    mutates: false,
    status: 200,
    area: 'connectors',
  }),
  listChannels: m({
    name: 'listChannels',
    method: 'GET',
    path: '/channels',
    summary: 'Agent channels',
    mutates: false,
    status: 200,
    area: 'channels',
  }),
  updateChannels: m({
    spec: 3,
    name: 'updateChannels',
    method: 'PUT',
    path: '/channels',
    summary: 'Enable or disable channels (all or none)',
    mutates: true,
    action: 'channel.update',
    status: 200,
    area: 'channels',
  }),
  listKeys: m({
    name: 'listKeys',
    method: 'GET',
    path: '/gateway/keys',
    summary: 'Gateway API keys',
    mutates: false,
    status: 200,
    area: 'gateway',
  }),
  createKey: m({
    spec: 4,
    name: 'createKey',
    method: 'POST',
    path: '/gateway/keys',
    summary: 'Create a gateway key; the secret is shown once',
    mutates: true,
    action: 'gateway.key.create',
    status: 201,
    area: 'gateway',
  }),
  revokeKey: m({
    spec: 5,
    name: 'revokeKey',
    method: 'POST',
    path: '/gateway/keys/:id/revoke',
    summary: 'Revoke a gateway key (terminal, idempotent)',
    mutates: true,
    action: 'gateway.key.revoke',
    status: 200,
    area: 'gateway',
  }),
  setQuota: m({
    spec: 6,
    name: 'setQuota',
    method: 'PUT',
    path: '/gateway/keys/:id/quota',
    summary: 'Replace a key quota',
    mutates: true,
    action: 'gateway.key.quota',
    status: 200,
    area: 'gateway',
  }),
  setKeyExpiry: m({
    name: 'setKeyExpiry',
    method: 'PUT',
    path: '/gateway/keys/:id/expiry',
    summary: 'Set or clear when a gateway key expires',
    mutates: true,
    action: 'gateway.key.expiry',
    status: 200,
    area: 'gateway',
  }),
  rotateKey: m({
    name: 'rotateKey',
    method: 'POST',
    path: '/gateway/keys/:id/rotate',
    summary: 'Give a gateway key a new secret, shown once; the old one works until the grace ends',
    mutates: true,
    action: 'gateway.key.rotate',
    status: 200,
    area: 'gateway',
  }),
  setKeyBudget: m({
    name: 'setKeyBudget',
    method: 'PUT',
    path: '/gateway/keys/:id/budget',
    summary: "Set or clear a gateway key's money budgets per day and per month",
    mutates: true,
    action: 'gateway.key.budget',
    status: 200,
    area: 'gateway',
  }),
  usage: m({
    spec: 7,
    name: 'usage',
    method: 'GET',
    path: '/gateway/usage',
    summary: 'Gateway usage per key over a time range',
    mutates: false,
    status: 200,
    area: 'gateway',
  }),
  spend: m({
    name: 'spend',
    method: 'GET',
    path: '/gateway/spend',
    summary: 'What the gateway cost over a time range, by model, workload or key',
    mutates: false,
    status: 200,
    area: 'gateway',
  }),
  listModels: m({
    spec: 8,
    name: 'listModels',
    method: 'GET',
    path: '/models',
    summary: 'Models present on the appliance',
    mutates: false,
    status: 200,
    area: 'models',
  }),
  activateModel: m({
    spec: 9,
    name: 'activateModel',
    method: 'POST',
    path: '/models/activate',
    summary: 'Make a present model the active one',
    mutates: true,
    action: 'model.activate',
    status: 200,
    area: 'models',
  }),
  listRouting: m({
    spec: 10,
    name: 'listRouting',
    method: 'GET',
    path: '/routing',
    summary: 'Routing per workload',
    mutates: false,
    status: 200,
    area: 'models',
  }),
  setRouting: m({
    spec: 11,
    name: 'setRouting',
    method: 'PUT',
    path: '/routing/:workload',
    summary: 'Set the model serving a workload (null follows the active model)',
    mutates: true,
    action: 'routing.update',
    status: 200,
    area: 'models',
  }),
  listAudit: m({
    spec: 12,
    name: 'listAudit',
    method: 'GET',
    path: '/audit',
    summary: 'Audit trail, newest first',
    mutates: false,
    status: 200,
    area: 'governance',
    checked: true,
  }),
  exportAudit: m({
    spec: 13,
    name: 'exportAudit',
    method: 'GET',
    path: '/audit/export',
    summary: 'Audit trail as a csv or jsonl download',
    mutates: false,
    auditedAs: 'audit.export',
    status: 200,
    area: 'governance',
  }),
  auditSummary: m({
    name: 'auditSummary',
    method: 'GET',
    path: '/audit/summary',
    summary: 'Audit trail counts over the whole match, by group',
    mutates: false,
    status: 200,
    area: 'governance',
  }),
  listAuditCheckpoints: m({
    name: 'listAuditCheckpoints',
    method: 'GET',
    path: '/audit/checkpoints',
    summary: 'Signed checkpoints of the audit trail, newest first, and the public keys to verify them',
    mutates: false,
    status: 200,
    area: 'governance',
    checked: true,
  }),
  sealAudit: m({
    name: 'sealAudit',
    method: 'POST',
    path: '/audit/seal',
    summary: "Seal a hash (an evidence pack's manifest) in the audit trail: its entry and a signed checkpoint of it",
    // it writes only the trail, as an export does: every role may, the auditor first
    mutates: false,
    action: 'audit.seal',
    status: 201,
    area: 'governance',
    checked: true,
  }),
  auditInclusionProof: m({
    name: 'auditInclusionProof',
    method: 'GET',
    path: '/audit/proofs/inclusion',
    summary: "An audit entry's inclusion proof (RFC 9162) in the trail's tree of a signed size",
    mutates: false,
    status: 200,
    area: 'governance',
    checked: true,
  }),
  auditConsistencyProof: m({
    name: 'auditConsistencyProof',
    method: 'GET',
    path: '/audit/proofs/consistency',
    summary: "A consistency proof (RFC 9162) that the trail's tree of one size is a prefix of a larger one",
    mutates: false,
    status: 200,
    area: 'governance',
    checked: true,
  }),
  cosignAuditCheckpoint: m({
    name: 'cosignAuditCheckpoint',
    method: 'POST',
    path: '/audit/checkpoints/cosignatures',
    summary: "Hand the appliance a witness's cosignature of one of its checkpoint notes, served with it from then on",
    // it writes only the trail's evidence, as a seal does: a witness signs in as an auditor
    mutates: false,
    action: 'audit.checkpoint.cosign',
    status: 201,
    area: 'governance',
    checked: true,
  }),
  listJournal: m({
    spec: 14,
    name: 'listJournal',
    method: 'GET',
    path: '/agent/journal',
    summary: 'Agent execution journal, newest first',
    mutates: false,
    status: 200,
    area: 'governance',
  }),
  exportJournal: m({
    spec: 15,
    name: 'exportJournal',
    method: 'GET',
    path: '/agent/journal/export',
    summary: 'Agent journal as a csv or jsonl download',
    mutates: false,
    auditedAs: 'journal.export',
    status: 200,
    area: 'governance',
  }),
  journalSummary: m({
    name: 'journalSummary',
    method: 'GET',
    path: '/agent/journal/summary',
    summary: 'Agent journal counts over the whole match, by group',
    mutates: false,
    status: 200,
    area: 'governance',
  }),
  getBudgets: m({
    name: 'getBudgets',
    method: 'GET',
    path: '/agent/budgets',
    summary: 'Agent budgets',
    mutates: false,
    status: 200,
    area: 'governance',
  }),
  setBudgets: m({
    spec: 16,
    name: 'setBudgets',
    method: 'PUT',
    path: '/agent/budgets',
    summary: 'Replace agent budgets',
    mutates: true,
    action: 'agent.budgets.update',
    status: 200,
    area: 'governance',
  }),
  budgetUsage: m({
    name: 'budgetUsage',
    method: 'GET',
    path: '/agent/budgets/usage',
    summary: 'How much of its budget each agent used over the last 24 hours',
    mutates: false,
    status: 200,
    area: 'governance',
  }),
  deployment: m({
    spec: 17,
    name: 'deployment',
    method: 'GET',
    path: '/deployment',
    summary: 'Deployment status of this host',
    mutates: false,
    status: 200,
    area: 'deployment',
  }),
  installPlan: m({
    spec: 18,
    name: 'installPlan',
    method: 'GET',
    path: '/deployment/install-plan',
    summary: 'Install plan for this host',
    mutates: false,
    status: 200,
    area: 'deployment',
  }),
  settings: m({
    spec: 19,
    name: 'settings',
    method: 'GET',
    path: '/settings',
    summary: 'Appliance settings (read only)',
    mutates: false,
    status: 200,
    area: 'deployment',
  }),
  identityTest: m({
    spec: 20,
    name: 'identityTest',
    method: 'POST',
    path: '/identity/test',
    summary: 'Identity-provider connectivity pre-check; saves nothing',
    mutates: true,
    action: 'identity.test',
    status: 200,
    area: 'identity',
  }),
} as const satisfies Record<string, RouteMeta>;

export type RouteName = keyof typeof ROUTE_META;

/** The schemas an area module gives for exactly its own routes. */
export type AreaRoutes<A extends RouteArea> = {
  [N in RouteName as (typeof ROUTE_META)[N]['area'] extends A ? N : never]: RouteSchemas;
};

/** Every capability a mutating role holds. */
export const MUTATION_ACTIONS: string[] = Object.values(ROUTE_META as Record<string, RouteMeta>)
  .filter((d) => d.mutates && d.action)
  .map((d) => d.action as string);
