import type { Statement } from 'better-sqlite3';
import type { Db } from './db/sqlite-driver.js';
import { newId, iso } from './ids.js';
import { indexInserted } from './governance/index-inserted.js';
import { insertLinked, type AuditRow } from './audit-chain/chain.js';
import { checkpointIfDue } from './audit-chain/checkpoints.js';
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

/**
 * Appends one audit entry, linked into the hash chain (docs/audit-chain.md). Call inside the
 * mutation's transaction so neither exists without the other; the entry, its count in the
 * summaries and a checkpoint when one is due are written together or not at all.
 */
export function recordAudit(db: Db, rec: AuditRecord): string {
  const at_ms = rec.at_ms ?? Date.now();
  const id = newId('aud');
  const row: AuditRow = {
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
  if (preChain.has(db)) {
    db.transaction(() => indexInserted(db, 'audit', preChainInsert(db).run(row).lastInsertRowid))();
    return id;
  }
  // immediate: the head is read under the write lock, so a writer in another process (the host
  // CLI) cannot slip an entry in between; within a caller's transaction this is a savepoint
  db.transaction(() => {
    const head = insertLinked(db, [row]);
    indexInserted(db, 'audit', head.seq);
    checkpointIfDue(db, head);
  }).immediate();
  return id;
}

const preChain = new WeakMap<Db, Statement>();
const preChainInsert = (db: Db) => preChain.get(db)!;

/**
 * Benchmarks only (test/bench/server-audit-chain.bench.ts): this database's entries are written
 * as they were before the hash chain, unlinked, so that a mutation's cost with the chain can be
 * measured against its cost without it in one run. The server never calls it.
 */
export function writePreChainForBenchmark(db: Db): void {
  preChain.set(
    db,
    db.prepare(`INSERT INTO audit (id, at, at_ms, actor_subject, actor_role, action, target_type, target_id,
      target_name, outcome, status, request_id, source_ip, details)
      VALUES (@id, @at, @at_ms, @actor_subject, @actor_role, @action, @target_type, @target_id,
      @target_name, @outcome, @status, @request_id, @source_ip, @details)`),
  );
}
