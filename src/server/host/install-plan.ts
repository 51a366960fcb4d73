import type { InstallPlan } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { migrations } from '../db/migrations.js';
import type { CatalogModel } from '../models/catalog.js';
import type { HostFacts } from './facts.js';
import { formatBytes, versionAtLeast } from './units.js';

const MIN_NODE_VERSION = '20.18';
/** Steps without which the appliance cannot serve; while one is not done, status is `installing`. */
export const REQUIRED_STEPS = ['database', 'models'];

type Requirement = InstallPlan['requirements'][number];
type Step = InstallPlan['steps'][number];

export function sqliteVersion(db: Db): string | null {
  try {
    return db.prepare('SELECT sqlite_version()').pluck().get() as string;
  } catch {
    return null;
  }
}

function checkRequirements(config: ServerConfig, facts: HostFacts, db: Db): Requirement[] {
  const req = config.requirements;
  const sqlite = sqliteVersion(db);
  const acc = facts.accelerators;
  return [
    { name: 'cpus', required: String(req.cpus), actual: String(facts.cpus), ok: facts.cpus >= req.cpus },
    {
      name: 'memory',
      required: formatBytes(req.memory_bytes),
      actual: formatBytes(facts.memory_bytes),
      ok: facts.memory_bytes >= req.memory_bytes,
    },
    {
      name: 'disk_free',
      required: formatBytes(req.disk_free_bytes),
      actual: facts.disk_free_bytes === null ? 'unknown' : formatBytes(facts.disk_free_bytes),
      ok: facts.disk_free_bytes !== null && facts.disk_free_bytes >= req.disk_free_bytes,
    },
    {
      name: 'accelerators',
      required: String(req.accelerators),
      actual: acc.length ? `${acc.length} (${acc.map((a) => a.name).join(', ')})` : '0',
      ok: acc.length >= req.accelerators,
    },
    {
      name: 'node',
      required: MIN_NODE_VERSION,
      actual: process.versions.node,
      ok: versionAtLeast(process.versions.node, MIN_NODE_VERSION),
    },
    { name: 'sqlite', required: 'available', actual: sqlite ?? 'unavailable', ok: sqlite !== null },
  ];
}

function appliedMigrations(db: Db): Set<number> {
  try {
    return new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  } catch {
    return new Set();
  }
}

/** Active gateway keys; read defensively, the table belongs to the gateway. */
export function activeKeyCount(db: Db): number | null {
  try {
    return db.prepare("SELECT count(*) FROM gateway_keys WHERE status = 'active'").pluck().get() as number;
  } catch {
    return null;
  }
}

function installSteps(config: ServerConfig, requirements: Requirement[], db: Db, models: CatalogModel[]): Step[] {
  const failing = requirements.filter((r) => !r.ok);
  const applied = appliedMigrations(db);
  const pendingMigrations = migrations.filter((m) => !applied.has(m.version));
  const present = models.filter((m) => m.state === 'present');
  const modelPlace =
    config.models_dir ?? (config.models.length ? config.models.map((m) => m.path).join(', ') : 'the appliance');
  const keys = activeKeyCount(db);

  return [
    {
      id: 'host-requirements',
      title: 'Host meets the requirements',
      status: failing.length ? 'blocked' : 'done',
      detail: failing.length
        ? `below requirements: ${failing.map((r) => `${r.name} ${r.actual} (needs ${r.required})`).join('; ')}`
        : 'all requirements met',
    },
    {
      id: 'database',
      title: 'Database schema',
      status: pendingMigrations.length ? 'pending' : 'done',
      detail: pendingMigrations.length
        ? `${pendingMigrations.length} migration(s) not applied; restart the server to apply them`
        : `schema version ${Math.max(0, ...applied)} applied`,
    },
    {
      id: 'models',
      title: 'Model files present',
      status: present.length ? 'done' : 'pending',
      detail: present.length
        ? `${present.length} of ${models.length} model(s) present`
        : `copy model files to ${modelPlace}; the service does not download models`,
    },
    {
      id: 'connectors',
      title: 'Connectors configured',
      status: config.connectors.length ? 'done' : 'pending',
      detail: config.connectors.length
        ? `${config.connectors.length} connector(s) in the configuration`
        : 'no connector configured; connectors are set in the appliance configuration file, not through this interface',
    },
    {
      id: 'identity',
      title: 'Single sign-on',
      status: config.sso ? 'done' : 'pending',
      detail: config.sso
        ? `tokens from ${config.sso.issuer} are accepted; federation itself is set up in the identity provider`
        : 'not configured: on-host tokens only; federation is set up in the identity provider, not here',
    },
    {
      id: 'gateway-keys',
      title: 'Gateway API key',
      status: keys ? 'done' : 'pending',
      detail:
        keys === null
          ? 'gateway keys cannot be read'
          : keys
            ? `${keys} active key(s)`
            : 'create a key with POST /v1/admin/gateway/keys',
    },
  ];
}

export function buildInstallPlan(config: ServerConfig, facts: HostFacts, db: Db, models: CatalogModel[]): InstallPlan {
  const requirements = checkRequirements(config, facts, db);
  return { steps: installSteps(config, requirements, db, models), requirements };
}
