/**
 * The columns text search (`q`) looks in, per table, and the trigram index over them (migration 8):
 * an FTS5 table of external content, kept by the writers for inserts (searchRowsSql, with the
 * tallies) and by triggers for the rare update or delete. `detail=none` keeps it a quarter of the
 * size of a full one (125 vs 514 MB over 1,000,000 entries): it finds candidates holding every
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
