import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/sqlite-driver.js';
import { tallyRowsSql, type TalliedTable } from '../db/migrations.js';
import { searchRowsSql } from '../db/searched.js';

const statements = new WeakMap<Db, Map<TalliedTable, Statement[]>>();

/**
 * Adds the rows of `table` from seq `first` on, just inserted, to the summaries' tallies (migration
 * 5) and to its search index (migration 8). Every writer that inserts calls it in the inserting
 * transaction, once per batch: a statement per batch costs far less than a trigger per row.
 */
export function indexInserted(db: Db, table: TalliedTable, first: number | bigint): void {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let st = m.get(table);
  if (!st)
    m.set(
      table,
      (st = [...tallyRowsSql(table, 'seq >= ?'), searchRowsSql(table, 'seq >= ?')].map((sql) => db.prepare(sql))),
    );
  for (const s of st) s.run(first);
}
