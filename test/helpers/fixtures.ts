import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../src/server/db/sqlite-driver.js';
import { ServerConfig } from '../../src/server/config.js';

export const tempDir = (label = 'aa') => mkdtempSync(join(tmpdir(), `${label}-`));

/**
 * A small but real appliance configuration: local directory and SQLite sources, one remote
 * source with no driver, model files present on disk (and one missing), workloads and channels.
 */
export function fixtureConfig(root: string, overrides: Partial<ServerConfig> = {}): ServerConfig {
  const docs = join(root, 'sources', 'docs');
  mkdirSync(join(docs, 'policies'), { recursive: true });
  writeFileSync(join(docs, 'handbook.md'), '# Handbook\n');
  writeFileSync(join(docs, 'policies', 'leave.md'), 'Leave policy\n');
  writeFileSync(join(docs, 'policies', 'travel.md'), 'Travel policy\n');
  const sqliteFile = join(root, 'sources', 'erp.sqlite');
  const db = new Database(sqliteFile);
  db.exec('CREATE TABLE IF NOT EXISTS invoices (id INTEGER PRIMARY KEY, amount REAL); DELETE FROM invoices;');
  const ins = db.prepare('INSERT INTO invoices (amount) VALUES (?)');
  for (let i = 0; i < 5; i++) ins.run(i * 10.5);
  db.exec(
    "CREATE TABLE IF NOT EXISTS customers (id INTEGER PRIMARY KEY, name TEXT); DELETE FROM customers; INSERT INTO customers (name) VALUES ('a'), ('b');",
  );
  db.close();
  const models = join(root, 'models');
  mkdirSync(models, { recursive: true });
  writeFileSync(join(models, 'llama-3.1-8b-q4.gguf'), Buffer.alloc(2048));
  writeFileSync(join(models, 'mistral-7b-q5.gguf'), Buffer.alloc(4096));
  return ServerConfig.parse({
    appliance: { name: 'test-appliance' },
    connectors: [
      {
        id: 'conn_docs',
        name: 'Team share',
        kind: 'document-sharing',
        rbac_labels: ['staff'],
        sources: [{ id: 'src_docs', name: 'Docs', type: 'directory', path: docs }],
      },
      {
        id: 'conn_erp',
        name: 'ERP database',
        kind: 'relational-database',
        rbac_labels: ['finance'],
        sources: [{ id: 'src_erp', name: 'ERP', type: 'sqlite', path: sqliteFile }],
      },
      {
        id: 'conn_crm',
        name: 'Cloud CRM',
        kind: 'crm',
        rbac_labels: ['sales'],
        sources: [{ id: 'src_crm', name: 'Accounts', type: 'remote', url: 'https://crm.example.invalid' }],
      },
    ],
    channels: [
      { id: 'chan_web', name: 'Web chat', enabled: true },
      { id: 'chan_mail', name: 'Email', enabled: false },
    ],
    models: [
      {
        id: 'llama-3.1-8b',
        name: 'Llama 3.1 8B Instruct',
        family: 'llama',
        parameters: 8030000000,
        quantization: 'q4_k_m',
        path: join(models, 'llama-3.1-8b-q4.gguf'),
      },
      {
        id: 'mistral-7b',
        name: 'Mistral 7B Instruct',
        family: 'mistral',
        parameters: 7240000000,
        quantization: 'q5_k_m',
        path: join(models, 'mistral-7b-q5.gguf'),
      },
      {
        id: 'ghost-70b',
        name: 'Not downloaded 70B',
        family: 'llama',
        parameters: 70000000000,
        quantization: 'q4_k_m',
        path: join(models, 'absent.gguf'),
      },
    ],
    default_model: 'llama-3.1-8b',
    workloads: [{ id: 'chat' }, { id: 'summarize', model_id: 'mistral-7b' }, { id: 'embed' }],
    budgets: { tokens_per_run: 20000, tool_calls_per_run: 20, seconds_per_run: 300, tokens_per_day: null },
    identity_test: { allow_http: true, allow_private_addresses: true, timeout_ms: 5000, max_bytes: 1048576 },
    // tests of other things send changes and exports faster than a caller may (durability, fuzz, the contract's
    // errors): the rate limit is the production one only where a test says so (test/server/rate-limit.test.ts)
    rate_limit: { burst: 1_000_000, per_second: 1_000_000 },
    ...overrides,
  });
}
