/**
 * The columns text search (`q`) looks in, per table, and the trigram index over them (migration 8):
 * a contentless FTS5 table (contentless_delete: a row is removed by its rowid alone, so a row the
 * index never saw can be deleted or changed without corrupting it). The writers add their rows
 * in one statement per batch (searchRowsSql, with the tallies): a trigger per inserted row made a
 * bulk insert 3-4x as slow (a statement journal per row); triggers keep the rare update and
 * delete in step. A row inserted past the writers (a host's sqlite3) is not in the index. `detail=none` keeps it about a quarter of
 * the size of a full one (docs/performance.md): it finds candidates holding every
 * trigram of the text, and the LIKE over the row decides (governance/search.ts).
 */
export const SEARCHED = {
  audit: {
    key: 'seq',
    columns: ['actor_subject', 'action', 'outcome', 'target_type', 'target_id', 'target_name', 'details'],
  },
  journal: { key: 'seq', columns: ['agent', 'status', 'tool', 'run_id', 'error_code', 'error_message'] },
} as const;
export type SearchedTable = keyof typeof SEARCHED;
export const searchIndexOf = (table: SearchedTable) => `${table}_search`;

/** The statement adding the rows of `table` that `where` selects to its search index. */
export const searchRowsSql = (table: SearchedTable, where: string): string => {
  const { key, columns } = SEARCHED[table];
  return `INSERT INTO ${searchIndexOf(table)} (rowid, ${columns.join(', ')})
  SELECT ${key}, ${columns.join(', ')} FROM ${table} WHERE ${where}`;
};
