import { join, resolve } from 'node:path';
import { ServerConfig } from '../config.js';
import { ensureDataDir } from '../db/open.js';
import { DEMO_MODELS, createDemoModelFiles, createDemoSources } from './sources.js';

/**
 * What the demo's models cost per million tokens, as an appliance charges its departments back:
 * every model priced explicitly, the embedding model at zero stated as such, and the coder model
 * left unpriced (just added, its price not agreed yet), so that the models screen and the overview
 * show what an unpriced model serving traffic looks like.
 */
export const DEMO_PRICING = {
  currency: 'EUR',
  models: {
    'llama-3.1-8b-instruct': { input_per_million: 0.2, output_per_million: 0.6 },
    'mistral-7b-instruct-v0.3': { input_per_million: 0.25, output_per_million: 0.75 },
    'qwen2.5-14b-instruct': { input_per_million: 0.5, output_per_million: 1.5 },
    'phi-3.5-mini-instruct': { input_per_million: 0.1, output_per_million: 0.3 },
    'nomic-embed-text-v1.5': { input_per_million: 0, output_per_million: 0 },
    'llama-3.3-70b-instruct': { input_per_million: 1.2, output_per_million: 3.6 },
  },
};

export const DEMO_SOURCES_DIR = 'demo-sources';
export const DEMO_MODELS_DIR = 'demo-models';

/**
 * The demo appliance's configuration. Its local sources (directories and a SQLite file) and
 * placeholder model files are created under dataDir, idempotently, so every local connector
 * source really ingests; the cloud CRM has a remote source and fails honestly (no driver).
 */
export function loadDemoConfig(dataDir: string): ServerConfig {
  const root = resolve(dataDir);
  ensureDataDir(root); // 0700 before the demo's sources and models are written into it
  const src = createDemoSources(join(root, DEMO_SOURCES_DIR));
  const modelsDir = join(root, DEMO_MODELS_DIR);
  createDemoModelFiles(modelsDir);
  const dir = (id: string, name: string, path: string) => ({ id, name, type: 'directory' as const, path });

  return ServerConfig.parse({
    appliance: { name: 'northwind-ai-01', site: 'Frankfurt DC2, rack 14' },
    connectors: [
      {
        id: 'conn_hr_share',
        name: 'HR policy share',
        kind: 'document-sharing',
        rbac_labels: ['all-staff', 'hr'],
        sources: [dir('src_hr_policies', 'Policies and handbooks', src.hrShare)],
      },
      {
        id: 'conn_eng_share',
        name: 'Engineering file share',
        kind: 'document-sharing',
        rbac_labels: ['engineering'],
        sources: [
          dir('src_eng_runbooks', 'Runbooks', join(src.engineeringShare, 'runbooks')),
          dir('src_eng_all', 'Whole share', src.engineeringShare),
        ],
      },
      {
        id: 'conn_office_export',
        name: 'Office suite export',
        kind: 'office-suite',
        rbac_labels: ['all-staff'],
        sources: [dir('src_office_docs', 'Documents, sheets and calendars', src.officeExport)],
      },
      {
        id: 'conn_crm_export',
        name: 'CRM nightly export',
        kind: 'crm',
        rbac_labels: ['sales', 'management'],
        sources: [dir('src_crm_files', 'Accounts, contacts, opportunities', src.crmExport)],
      },
      {
        id: 'conn_ledger_export',
        name: 'Accounting ledger export',
        kind: 'accounting',
        rbac_labels: ['finance'],
        sources: [dir('src_ledger_files', 'Invoices and general ledger', src.accountingExport)],
      },
      {
        id: 'conn_ops_db',
        name: 'Operations database',
        kind: 'relational-database',
        rbac_labels: ['finance', 'sales', 'management'],
        sources: [{ id: 'src_ops_sqlite', name: 'Orders and customers', type: 'sqlite', path: src.operationsDb }],
      },
      {
        id: 'conn_cloud_crm',
        name: 'Cloud CRM (hosted)',
        kind: 'crm',
        rbac_labels: ['sales'],
        sources: [
          {
            id: 'src_cloud_accounts',
            name: 'Accounts API',
            type: 'remote',
            url: 'https://northwind.crm.example.com/api/v2',
          },
        ],
      },
    ],
    channels: [
      { id: 'chan_web', name: 'Web chat', enabled: true },
      { id: 'chan_teams', name: 'Microsoft Teams', enabled: true },
      { id: 'chan_slack', name: 'Slack', enabled: true },
      { id: 'chan_api', name: 'REST API', enabled: true },
      { id: 'chan_email', name: 'Email', enabled: false },
      { id: 'chan_sms', name: 'SMS', enabled: false },
    ],
    models: DEMO_MODELS.map((m) => ({
      id: m.id,
      name: m.name,
      family: m.family,
      parameters: m.parameters,
      quantization: m.quantization,
      path: join(modelsDir, m.file),
    })),
    default_model: 'llama-3.1-8b-instruct',
    pricing: DEMO_PRICING,
    workloads: [
      { id: 'chat', model_id: null },
      { id: 'summarize', model_id: 'mistral-7b-instruct-v0.3' },
      { id: 'extract', model_id: 'qwen2.5-14b-instruct' },
      { id: 'embed', model_id: 'nomic-embed-text-v1.5' },
      { id: 'code-assist', model_id: 'qwen2.5-coder-7b-instruct' },
      { id: 'classify', model_id: null },
    ],
    budgets: { tokens_per_run: 32_000, tool_calls_per_run: 25, seconds_per_run: 300, tokens_per_day: 2_000_000 },
    // A small appliance: what the demo host (a laptop or a CI runner) normally has.
    requirements: { cpus: 2, memory_bytes: 4 * 2 ** 30, disk_free_bytes: 5 * 2 ** 30, accelerators: 0 },
    identity_test: { allow_http: false, allow_private_addresses: false, timeout_ms: 5000, max_bytes: 2 ** 20 },
  });
}
