import type { Database } from 'better-sqlite3';

/**
 * Changes an appliance's database as someone with its data directory could: the append-only
 * triggers of the audit trail and its checkpoints dropped first, then each statement run. The
 * tamper suites (test/server/audit-tamper.test.ts, test/screens/audit-chain*.test.tsx) share it.
 */
export function tamper(db: Database, ...sql: string[]): void {
  for (const t of db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('audit', 'audit_checkpoints')")
    .pluck()
    .all())
    db.exec(`DROP TRIGGER "${String(t)}"`);
  for (const q of sql) db.exec(q);
}
