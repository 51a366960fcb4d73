import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open.js';
import { tallyRowsSql, type TalliedTable } from '../db/migrations.js';

const statements = new WeakMap<Db, Map<TalliedTable, Statement[]>>();

/**
 * Adds the rows of `table` from seq `first` on, just inserted, to the summaries' tallies (migration
 * 5). Every writer that inserts calls it in the inserting transaction, once per batch.
 */
export function tallyInserted(db: Db, table: TalliedTable, first: number | bigint): void {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let st = m.get(table);
  if (!st) m.set(table, (st = tallyRowsSql(table, 'seq >= ?').map((sql) => db.prepare(sql))));
  for (const s of st) s.run(first);
}
