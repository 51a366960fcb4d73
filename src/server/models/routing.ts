import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import type { RoutingEntry } from '../../contract/index.js';
import { iso } from '../ids.js';
import { activeModelId } from './active.js';
import { modelCatalog } from './catalog.js';

interface RoutingRow {
  workload: string;
  model_id: string | null;
  updated_at: string | null;
  updated_by: string | null;
}

/** Seeds a routing row per configured workload; later changes win over the config on restart. */
export function seedRouting(db: Db, config: ServerConfig): void {
  const insert = db.prepare(
    'INSERT OR IGNORE INTO routing (workload, model_id, updated_at, updated_by) VALUES (?, ?, NULL, NULL)',
  );
  db.transaction(() => {
    for (const w of config.workloads) insert.run(w.id, w.model_id);
  })();
}

export const isWorkload = (config: ServerConfig, workload: string) => config.workloads.some((w) => w.id === workload);

/** Routing of the configured workloads, in config order, with the model each one resolves to. */
export function routingEntries(db: Db, config: ServerConfig): RoutingEntry[] {
  const rows = new Map(
    (db.prepare('SELECT workload, model_id, updated_at, updated_by FROM routing').all() as RoutingRow[]).map((r) => [
      r.workload,
      r,
    ]),
  );
  const active = activeModelId(db, config, modelCatalog(config).list());
  return config.workloads.map((w) => {
    const row = rows.get(w.id) ?? { workload: w.id, model_id: w.model_id, updated_at: null, updated_by: null };
    return { ...row, effective_model_id: row.model_id ?? active };
  });
}

export function routingEntry(db: Db, config: ServerConfig, workload: string): RoutingEntry | undefined {
  return routingEntries(db, config).find((e) => e.workload === workload);
}

export function storeRouting(db: Db, workload: string, modelId: string | null, by: string): void {
  db.prepare(
    `INSERT INTO routing (workload, model_id, updated_at, updated_by) VALUES (?, ?, ?, ?)
     ON CONFLICT (workload) DO UPDATE SET model_id = excluded.model_id, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
  ).run(workload, modelId, iso(), by);
}
