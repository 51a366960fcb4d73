import type { Db } from '../db/sqlite-driver.js';
import { iso } from '../ids.js';
import { thousands } from '../../text/thousands.js';
import type { ChainRefused } from './extends.js';

/**
 * Whether the appliance can vouch for its audit trail, for the deployment status (and so the
 * overview): `refused` when the trail does not extend the last checkpoint it signed (it will not
 * sign it: someone changed the database), `failing` while checkpoints cannot be signed (a key it
 * cannot read, a full disk), retried every minute.
 */
export interface ChainHealth {
  state: 'ok' | 'refused' | 'failing';
  message: string | null;
  since: string | null;
}

const OK: ChainHealth = { state: 'ok', message: null, since: null };
const health = new WeakMap<Db, ChainHealth>();

export const chainHealth = (db: Db): ChainHealth => health.get(db) ?? OK;

export function recordSigned(db: Db): void {
  health.delete(db);
}

export function recordRefusal(db: Db, err: ChainRefused): void {
  const since = chainHealth(db).state === 'refused' ? chainHealth(db).since : iso();
  const base = err.base.seq ? `#${thousands(err.base.seq)}` : 'the genesis';
  health.set(db, {
    state: 'refused',
    since,
    message:
      `the trail does not extend the last checkpoint this appliance signed (${base}): ${err.message}; ` +
      'it signs nothing until this is investigated (docs/operations.md, "The audit chain is refused")',
  });
}

export function recordFailure(db: Db, err: unknown): void {
  const e = err as NodeJS.ErrnoException;
  const why = e?.code ? `${e.code}${e.path ? ` on ${e.path}` : ''}` : String(e?.message ?? err).slice(0, 200);
  const since = chainHealth(db).state === 'failing' ? chainHealth(db).since : iso();
  health.set(db, {
    state: 'failing',
    since,
    message: `audit checkpoints cannot be signed (${why}); retried every minute`,
  });
}
