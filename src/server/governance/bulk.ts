import type { Db } from '../db/sqlite-driver.js';
import type { AuditRecord } from '../audit.js';
import { iso, newId } from '../ids.js';
import type { TalliedTable } from '../db/migrations.js';
import { indexInserted } from './index-inserted.js';
import { insertLinked, readHead, type AuditRow } from '../audit-chain/chain.js';
import { CHECKPOINT_EVERY_ENTRIES, checkpointIfDue } from '../audit-chain/checkpoints.js';
import { journalInsert, journalRow, type JournalRecord } from './journal-writer.js';
import { isRole } from '../../contract/roles.js';

/** Seeders and benchmarks: many rows, one prepared statement, one transaction (all or none). */

export type AuditSeed = AuditRecord & { id?: string };

const OUTCOMES = new Set(['success', 'denied', 'failed']);
/** The row to insert; throws TypeError on an entry the audit list's contract could not show. */
function auditRow(r: AuditSeed, now: number) {
  const bad = (why: string): never => {
    throw new TypeError(`audit entry: ${why}`);
  };
  if (!r.actor?.subject || typeof r.actor.subject !== 'string') bad('actor.subject is required');
  if (r.actor.role !== null && !isRole(r.actor.role)) bad(`unknown role ${String(r.actor.role)}`);
  if (!r.action || typeof r.action !== 'string') bad('action is required');
  if (typeof r.target?.type !== 'string') bad('target.type is required');
  if (r.target.name != null && typeof r.target.name !== 'string') bad('target.name must be text');
  if (!OUTCOMES.has(r.outcome)) bad(`unknown outcome ${String(r.outcome)}`);
  if (!Number.isInteger(r.status)) bad('status must be an integer');
  if (r.at_ms !== undefined && !Number.isSafeInteger(r.at_ms)) bad('at_ms must be epoch milliseconds');
  const at_ms = r.at_ms ?? now;
  const row: AuditRow = {
    id: r.id ?? newId('aud'),
    at: iso(at_ms),
    at_ms,
    actor_subject: r.actor.subject,
    actor_role: r.actor.role,
    action: r.action,
    target_type: r.target.type,
    target_id: r.target.id,
    target_name: r.target.name ?? null,
    outcome: r.outcome,
    status: r.status,
    request_id: r.request_id,
    source_ip: r.source_ip,
    details: JSON.stringify(r.details ?? {}),
  };
  return row;
}

/** Runs `insert` in one transaction, then tallies the rows it wrote for the summaries in one pass. */
function insertTallied(db: Db, table: TalliedTable, insert: () => number): number {
  return db.transaction(() => {
    const first = db.prepare(`SELECT coalesce(max(seq), 0) + 1 FROM ${table}`).pluck().get() as number;
    const n = insert();
    indexInserted(db, table, first);
    return n;
  })();
}

/**
 * Inserts audit entries in one transaction, linked into the hash chain, with a checkpoint for
 * every CHECKPOINT_EVERY_ENTRIES as recordAudit writes them; at_ms defaults to now. Returns how many.
 */
export function insertAuditBatch(db: Db, rows: Iterable<AuditSeed>): number {
  const now = Date.now();
  return insertTallied(db, 'audit', () => {
    const first = readHead(db);
    let head = first;
    let chunk: AuditRow[] = [];
    const flush = () => {
      head = insertLinked(db, chunk, head);
      checkpointIfDue(db, head);
      chunk = [];
    };
    for (const r of rows) {
      chunk.push(auditRow(r, now));
      if (chunk.length === CHECKPOINT_EVERY_ENTRIES) flush();
    }
    flush();
    return head.seq - first.seq;
  });
}

/** Inserts journal entries in one transaction. Returns how many. */
export function insertJournalBatch(db: Db, rows: Iterable<JournalRecord>): number {
  const insert = journalInsert(db);
  return insertTallied(db, 'journal', () => {
    let n = 0;
    for (const r of rows) {
      insert.run(journalRow(r));
      n++;
    }
    return n;
  });
}
