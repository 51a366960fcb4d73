import * as z from 'zod';
import { PageQuery, Problem } from './common.js';
import { ConnectorList, IngestAccepted, IngestRequest, Job, JobParams } from './connectors.js';
import { ChannelList, ChannelsUpdate } from './channels.js';
import { CreateKey, CreatedKey, GatewayKey, GatewayKeyList, KeyParams, SetQuota, Usage, UsageQuery } from './gateway.js';
import { ActivateModel, ActivateResult, ModelList, RoutingEntry, RoutingList, RoutingParams, SetRouting } from './models.js';
import {
  AuditExportQuery, AuditList, AuditQuery, Budgets, JournalExportQuery, JournalList, JournalQuery, SetBudgets,
} from './governance.js';
import { Deployment, InstallPlan, Settings } from './deployment.js';
import { IdentityTestRequest, IdentityTestResult, Session } from './identity.js';

export const API_PREFIX = '/v1/admin';

export interface RouteDef {
  /** operationId, also the name the client calls it by */
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  /** relative to /v1/admin, fastify style (`:id`) */
  path: string;
  summary: string;
  /** the capability / audit action; set on every mutation */
  action?: string;
  /** true when the route changes state: needs a mutating role, is audited */
  mutates: boolean;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** success status and schema; a `file` response is a streamed download */
  status: number;
  response: z.ZodType | 'file';
  /** number in the spec's endpoint table, when it has one */
  spec?: number;
}

const r = <const T extends RouteDef>(d: T) => d;

export const routes = {
  session: r({ name: 'session', method: 'GET', path: '/session', summary: 'Who the caller is and what it may do', mutates: false, status: 200, response: Session }),
  listConnectors: r({ spec: 1, name: 'listConnectors', method: 'GET', path: '/connectors', summary: 'Connector status', mutates: false, query: PageQuery, status: 200, response: ConnectorList }),
  ingest: r({ spec: 2, name: 'ingest', method: 'POST', path: '/connectors', summary: 'Start ingestion for a configured connector source', mutates: true, action: 'connector.ingest', body: IngestRequest, status: 202, response: IngestAccepted }),
  getJob: r({ name: 'getJob', method: 'GET', path: '/jobs/:job_id', summary: 'One ingestion job', mutates: false, params: JobParams, status: 200, response: Job }),
  listChannels: r({ name: 'listChannels', method: 'GET', path: '/channels', summary: 'Agent channels', mutates: false, query: PageQuery, status: 200, response: ChannelList }),
  updateChannels: r({ spec: 3, name: 'updateChannels', method: 'PUT', path: '/channels', summary: 'Enable or disable channels (all or none)', mutates: true, action: 'channel.update', body: ChannelsUpdate, status: 200, response: ChannelList }),
  listKeys: r({ name: 'listKeys', method: 'GET', path: '/gateway/keys', summary: 'Gateway API keys', mutates: false, query: PageQuery, status: 200, response: GatewayKeyList }),
  createKey: r({ spec: 4, name: 'createKey', method: 'POST', path: '/gateway/keys', summary: 'Create a gateway key; the secret is shown once', mutates: true, action: 'gateway.key.create', body: CreateKey, status: 201, response: CreatedKey }),
  revokeKey: r({ spec: 5, name: 'revokeKey', method: 'POST', path: '/gateway/keys/:id/revoke', summary: 'Revoke a gateway key (terminal, idempotent)', mutates: true, action: 'gateway.key.revoke', params: KeyParams, status: 200, response: GatewayKey }),
  setQuota: r({ spec: 6, name: 'setQuota', method: 'PUT', path: '/gateway/keys/:id/quota', summary: 'Replace a key quota', mutates: true, action: 'gateway.key.quota', params: KeyParams, body: SetQuota, status: 200, response: GatewayKey }),
  usage: r({ spec: 7, name: 'usage', method: 'GET', path: '/gateway/usage', summary: 'Gateway usage per key over a time range', mutates: false, query: UsageQuery, status: 200, response: Usage }),
  listModels: r({ spec: 8, name: 'listModels', method: 'GET', path: '/models', summary: 'Models present on the appliance', mutates: false, query: PageQuery, status: 200, response: ModelList }),
  activateModel: r({ spec: 9, name: 'activateModel', method: 'POST', path: '/models/activate', summary: 'Make a present model the active one', mutates: true, action: 'model.activate', body: ActivateModel, status: 200, response: ActivateResult }),
  listRouting: r({ spec: 10, name: 'listRouting', method: 'GET', path: '/routing', summary: 'Routing per workload', mutates: false, query: PageQuery, status: 200, response: RoutingList }),
  setRouting: r({ spec: 11, name: 'setRouting', method: 'PUT', path: '/routing/:workload', summary: 'Set the model serving a workload (null follows the active model)', mutates: true, action: 'routing.update', params: RoutingParams, body: SetRouting, status: 200, response: RoutingEntry }),
  listAudit: r({ spec: 12, name: 'listAudit', method: 'GET', path: '/audit', summary: 'Audit trail, newest first', mutates: false, query: AuditQuery, status: 200, response: AuditList }),
  exportAudit: r({ spec: 13, name: 'exportAudit', method: 'GET', path: '/audit/export', summary: 'Audit trail as a csv or jsonl download', mutates: false, query: AuditExportQuery, status: 200, response: 'file' }),
  listJournal: r({ spec: 14, name: 'listJournal', method: 'GET', path: '/agent/journal', summary: 'Agent execution journal, newest first', mutates: false, query: JournalQuery, status: 200, response: JournalList }),
  exportJournal: r({ spec: 15, name: 'exportJournal', method: 'GET', path: '/agent/journal/export', summary: 'Agent journal as a csv or jsonl download', mutates: false, query: JournalExportQuery, status: 200, response: 'file' }),
  getBudgets: r({ name: 'getBudgets', method: 'GET', path: '/agent/budgets', summary: 'Agent budgets', mutates: false, status: 200, response: Budgets }),
  setBudgets: r({ spec: 16, name: 'setBudgets', method: 'PUT', path: '/agent/budgets', summary: 'Replace agent budgets', mutates: true, action: 'agent.budgets.update', body: SetBudgets, status: 200, response: Budgets }),
  deployment: r({ spec: 17, name: 'deployment', method: 'GET', path: '/deployment', summary: 'Deployment status of this host', mutates: false, status: 200, response: Deployment }),
  installPlan: r({ spec: 18, name: 'installPlan', method: 'GET', path: '/deployment/install-plan', summary: 'Install plan for this host', mutates: false, status: 200, response: InstallPlan }),
  settings: r({ spec: 19, name: 'settings', method: 'GET', path: '/settings', summary: 'Appliance settings (read only)', mutates: false, status: 200, response: Settings }),
  identityTest: r({ spec: 20, name: 'identityTest', method: 'POST', path: '/identity/test', summary: 'Identity-provider connectivity pre-check; saves nothing', mutates: true, action: 'identity.test', body: IdentityTestRequest, status: 200, response: IdentityTestResult }),
} as const satisfies Record<string, RouteDef>;

export type RouteName = keyof typeof routes;
export type RouteResponse<N extends RouteName> = (typeof routes)[N]['response'] extends z.ZodType
  ? z.infer<Extract<(typeof routes)[N]['response'], z.ZodType>>
  : never;

/** Every capability a mutating role holds. */
export const MUTATION_ACTIONS: string[] = Object.values(routes as Record<string, RouteDef>)
  .filter((d) => d.mutates && d.action)
  .map((d) => d.action as string);

export { Problem };
