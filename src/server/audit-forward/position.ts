import type { Db } from '../db/sqlite-driver.js';
import { iso } from '../ids.js';

/**
 * The last entry a receiver took (migration 12, table audit_forward), per receiver URL: the copy
 * resumes after it after a restart or an outage, and a receiver never seen starts from #1.
 */
export function forwardedSeq(db: Db, target: string): number {
  const seq = db.prepare('SELECT seq FROM audit_forward WHERE target = ?').pluck().get(target) as number | undefined;
  return seq ?? 0;
}

/** Records that the receiver took every entry up to `seq`; the position never moves back. */
export function saveForwarded(db: Db, target: string, seq: number): void {
  db.prepare(
    `INSERT INTO audit_forward (target, seq, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (target) DO UPDATE SET seq = max(seq, excluded.seq), updated_at = excluded.updated_at`,
  ).run(target, seq, iso());
}

/** The trail's head and the time of the first entry after `seq` (null when there is none). */
export function lagAfter(db: Db, seq: number): { head: number; behind: number; oldestMs: number | null } {
  const head = (db.prepare('SELECT max(seq) FROM audit').pluck().get() as number | null) ?? 0;
  const oldest = db.prepare('SELECT at_ms FROM audit WHERE seq > ? ORDER BY seq LIMIT 1').pluck().get(seq) as
    number | undefined;
  // seq runs without a gap since the chain (chain.ts): the difference is the count, without reading the rows
  return { head, behind: Math.max(0, head - seq), oldestMs: oldest ?? null };
}
