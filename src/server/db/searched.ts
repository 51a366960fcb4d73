/**
 * The columns text search (`q`) looks in, per table, and the trigram index over them (migration 8):
 * an FTS5 table of external content, kept by triggers in the writer's own transaction, inserts
 * included: an index of external content must see every row it is later told to delete (a row
 * inserted past it and then deleted corrupts it), whoever writes. `detail=none` keeps it a quarter of the
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
