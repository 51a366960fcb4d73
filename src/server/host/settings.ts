import { join } from 'node:path';
import type { Settings } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { DB_FILE } from '../db/open.js';
import type { ServerConfig } from '../config.js';
import { VERSION } from '../../contract/version.js';
import { sqliteVersion } from './install-plan.js';
import { redact } from './redact.js';

function schemaVersion(db: Db): number | null {
  try {
    return db.prepare('SELECT max(version) FROM schema_migrations').pluck().get() as number | null;
  } catch {
    return null;
  }
}

/** The server's configuration as read-only sections, every secret-looking value redacted. */
export function buildSettings(config: ServerConfig, db: Db, dataDir: string): Settings {
  const sections: [string, Record<string, unknown>][] = [
    ['appliance', { ...config.appliance }],
    [
      'connectors',
      Object.fromEntries(
        config.connectors.map((c) => [
          c.id,
          {
            name: c.name,
            kind: c.kind,
            enabled: c.enabled,
            rbac_labels: c.rbac_labels,
            sources: c.sources.map((s) => ({
              id: s.id,
              name: s.name,
              type: s.type,
              path: s.path ?? null,
              url: s.url ?? null,
            })),
          },
        ]),
      ),
    ],
    [
      'models',
      {
        default_model: config.default_model ?? null,
        models_dir: config.models_dir ?? null,
        configured: config.models.map((m) => ({ id: m.id, name: m.name, family: m.family, path: m.path })),
      },
    ],
    ['workloads', Object.fromEntries(config.workloads.map((w) => [w.id, { initial_model_id: w.model_id }]))],
    ['identity_test', { ...config.identity_test }],
    ['sso', config.sso ? { configured: true, ...config.sso } : { configured: false }],
    ['audit_forward', config.audit_forward ? { configured: true, ...config.audit_forward } : { configured: false }],
    ['requirements', { ...config.requirements }],
    ['storage', { data_dir: dataDir, db_file: join(dataDir, DB_FILE), schema_version: schemaVersion(db) }],
    ['server', { version: VERSION, node_version: process.versions.node, sqlite_version: sqliteVersion(db) }],
  ];
  return { sections: sections.map(([name, values]) => ({ name, values: redact(values) as Record<string, unknown> })) };
}
