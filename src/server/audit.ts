import type { Db } from './db/open.js';
import { newId, iso } from './ids.js';
import { tallyInserted } from './governance/tallies.js';
import type { Outcome, Role } from '../contract/index.js';

export interface AuditRecord {
  actor: { subject: string; role: Role | null };
  action: string;
  /** name: what the target was called then (a key's name), so the trail reads after it is gone */
  target: { type: string; id: string | null; name?: string | null };
  outcome: Outcome;
  status: number;
  request_id: string;
  source_ip: string | null;
  /** metadata only: never a secret, a token or request content */
  details?: Record<string, unknown>;
  at_ms?: number;
}

const stmts = new WeakMap<Db, ReturnType<Db['prepare']>>();

/** Appends one audit entry. Call inside the mutation's transaction so neither exists without the other. */
export function recordAudit(db: Db, rec: AuditRecord): string {
  let insert = stmts.get(db);
  if (!insert) {
    insert =
      db.prepare(`INSERT INTO audit (id, at, at_ms, actor_subject, actor_role, action, target_type, target_id, target_name, outcome, status, request_id, source_ip, details)
      VALUES (@id, @at, @at_ms, @actor_subject, @actor_role, @action, @target_type, @target_id, @target_name, @outcome, @status, @request_id, @source_ip, @details)`);
    stmts.set(db, insert);
  }
  const at_ms = rec.at_ms ?? Date.now();
  const id = newId('aud');
  const row = {
    id,
    at: iso(at_ms),
    at_ms,
    actor_subject: rec.actor.subject,
    actor_role: rec.actor.role,
    action: rec.action,
    target_type: rec.target.type,
    target_id: rec.target.id,
    target_name: rec.target.name ?? null,
    outcome: rec.outcome,
    status: rec.status,
    request_id: rec.request_id,
    source_ip: rec.source_ip,
    details: JSON.stringify(rec.details ?? {}),
  };
  // the entry and its count in the summaries: both or neither, inside the caller's transaction if any
  db.transaction(() => tallyInserted(db, 'audit', insert.run(row).lastInsertRowid))();
  return id;
}
