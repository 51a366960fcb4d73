import type { Deployment } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { iso } from '../ids.js';
import { VERSION } from '../../contract/version.js';
import { activeModelId } from '../models/active.js';
import type { CatalogModel } from '../models/catalog.js';
import type { HostFacts } from './facts.js';
import { activeKeyCount, buildInstallPlan, REQUIRED_STEPS } from './install-plan.js';
import { chainHealth } from '../audit-chain/health.js';
import { backgroundTasks } from '../background.js';
import { forwardComponent, forwardLag } from '../audit-forward/status.js';

type Component = Deployment['components'][number];

function database(db: Db): Component {
  try {
    const version = db.prepare('SELECT sqlite_version()').pluck().get() as string;
    return { name: 'database', status: 'healthy', version, message: null };
  } catch (err) {
    return {
      name: 'database',
      status: 'down',
      version: null,
      message: `database does not answer: ${(err as Error).message}`,
    };
  }
}

function modelStore(db: Db, config: ServerConfig, models: CatalogModel[]): Component {
  const present = models.filter((m) => m.state === 'present').length;
  const activeId = activeModelId(db, config, models);
  const active = models.find((m) => m.id === activeId);
  if (!active)
    return { name: 'model-store', status: 'degraded', version: null, message: 'no model is known to the appliance' };
  if (active.state !== 'present') {
    return {
      name: 'model-store',
      status: 'degraded',
      version: null,
      message: `active model ${active.id} is missing on disk; copy its files or activate a present model`,
    };
  }
  return {
    name: 'model-store',
    status: 'healthy',
    version: null,
    message: `active model ${active.id}; ${present} of ${models.length} present`,
  };
}

/** Degraded when a configured, enabled connector's last sync failed. connector_state belongs to ingestion. */
function ingestion(db: Db, config: ServerConfig): Component {
  const enabled = new Set(config.connectors.filter((c) => c.enabled).map((c) => c.id));
  let failed: string[] = [];
  try {
    const rows = db
      .prepare("SELECT connector_id FROM connector_state WHERE last_sync_status = 'failed' ORDER BY connector_id")
      .pluck()
      .all() as string[];
    failed = rows.filter((id) => enabled.has(id));
  } catch {
    return { name: 'ingestion', status: 'degraded', version: VERSION, message: 'connector state cannot be read' };
  }
  return failed.length
    ? { name: 'ingestion', status: 'degraded', version: VERSION, message: `last sync failed for ${failed.join(', ')}` }
    : { name: 'ingestion', status: 'healthy', version: VERSION, message: `${enabled.size} enabled connector(s)` };
}

/**
 * Whether the appliance vouches for its audit trail: down when the trail does not extend the last
 * checkpoint it signed (it signs nothing more: someone changed the database), degraded while
 * checkpoints cannot be signed (retried every minute).
 */
function auditChain(db: Db): Component {
  const h = chainHealth(db);
  if (h.state === 'ok') return { name: 'audit-chain', status: 'healthy', version: null, message: 'checkpoints signed' };
  return {
    name: 'audit-chain',
    status: h.state === 'refused' ? 'down' : 'degraded',
    version: null,
    message: `${h.message} (since ${h.since})`,
  };
}

/**
 * Degraded while a background task fails (ingestion, the demo's traffic, the refused-request
 * counts …: background.ts), naming each with its last error; healthy once each has succeeded again.
 */
function background(db: Db): Component {
  const failing = backgroundTasks(db).failures();
  if (!failing.length) return { name: 'background-tasks', status: 'healthy', version: null, message: 'none failing' };
  return {
    name: 'background-tasks',
    status: 'degraded',
    version: null,
    message: failing
      .map(
        (f) =>
          `${f.task} failing: ${f.error} (${f.failures} failure${f.failures === 1 ? '' : 's'} in a row since ${f.since}; ` +
          `last at ${f.last_at}, ${f.retry})`,
      )
      .join('; '),
  };
}

export function buildDeployment(config: ServerConfig, facts: HostFacts, db: Db, models: CatalogModel[]): Deployment {
  const plan = buildInstallPlan(config, facts, db, models);
  const failing = plan.requirements.filter((r) => !r.ok);
  const keys = activeKeyCount(db);
  const components: Component[] = [
    { name: 'admin-api', status: 'healthy', version: VERSION, message: null },
    database(db),
    {
      name: 'host',
      status: failing.length ? 'degraded' : 'healthy',
      version: null,
      message: failing.length
        ? `below requirements: ${failing.map((r) => r.name).join(', ')}`
        : 'meets the requirements',
    },
    modelStore(db, config, models),
    { name: 'gateway', status: 'healthy', version: VERSION, message: keys === null ? null : `${keys} active key(s)` },
    ingestion(db, config),
    auditChain(db),
    ...[forwardComponent(db)].filter((c) => c !== null),
    background(db),
  ];
  const installing = plan.steps.some((s) => REQUIRED_STEPS.includes(s.id) && s.status !== 'done');
  const status = installing ? 'installing' : components.every((c) => c.status === 'healthy') ? 'healthy' : 'degraded';
  const { read_at, ...host } = facts;
  return { status, version: VERSION, host, components, checked_at: iso(read_at), audit_forward: forwardLag(db) };
}
