import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { iso } from '../ids.js';
import type { CatalogModel } from './catalog.js';

const ACTIVE_KEY = 'active_model';

/**
 * The active model: the one stored by the last activation, else the configured default, else the
 * first present model (else the first known one). A stored or default id that no longer names a
 * known model is skipped, so exactly one model is active whenever any model is known.
 */
export function activeModelId(db: Db, config: ServerConfig, models: CatalogModel[]): string | null {
  const known = (id: string | undefined | null) => (id != null && models.some((m) => m.id === id) ? id : null);
  const stored = db.prepare('SELECT value FROM app_state WHERE key = ?').pluck().get(ACTIVE_KEY) as string | undefined;
  return (
    known(stored) ??
    known(config.default_model) ??
    models.find((m) => m.state === 'present')?.id ??
    models[0]?.id ??
    null
  );
}

/** One app_state row holds the active model, so concurrent activations leave exactly one. */
export function storeActiveModel(db: Db, modelId: string, by: string): void {
  db.prepare(
    `INSERT INTO app_state (key, value, updated_at, updated_by) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
  ).run(ACTIVE_KEY, modelId, iso(), by);
}
