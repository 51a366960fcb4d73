import type { Logger } from 'pino';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { backgroundTasks } from '../background.js';
import { startForwarder } from './forwarder.js';
import { forwardTarget } from './target.js';

/**
 * At server start: the copy of the audit trail to the configured syslog receiver, when the config
 * has one (its files read now: a bad one stops the start). Returns its stop.
 */
export function startAuditForward(db: Db, config: ServerConfig, log: Logger): () => Promise<void> {
  if (!config.audit_forward) return async () => undefined;
  const target = forwardTarget(config.audit_forward);
  const tasks = backgroundTasks(db);
  const forwarder = startForwarder(db, target, log.child({ area: 'audit-forward' }), (n) => tasks.backoff(n));
  return () => forwarder.stop();
}
