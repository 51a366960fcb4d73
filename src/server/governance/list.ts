import type { Page } from '../../contract/index.js';
import type { Db } from '../db/open.js';
import { decodeKeysetCursor, encodeKeysetCursor } from './cursor.js';
import { fingerprint, normalizeFilters, type TableSpec } from './filters.js';
import { fetchPage, keyOf, type Row } from './keyset.js';

/** One page, newest first: limit + 1 rows are read to know whether more follow. */
export function listPage<E>(
  db: Db,
  spec: TableSpec,
  q: { limit: number; after?: string } & Record<string, unknown>,
  toEntry: (r: Row) => E,
): Page<E> {
  const filters = normalizeFilters(spec, q);
  const fp = fingerprint(spec, filters);
  const after = q.after !== undefined ? decodeKeysetCursor(q.after, fp) : undefined;
  const rows = fetchPage(db, spec, filters, { after, limit: q.limit + 1, dir: 'desc' });
  const has_more = rows.length > q.limit;
  const pageRows = rows.slice(0, q.limit);
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(toEntry),
    has_more,
    next_cursor: has_more && last ? encodeKeysetCursor(keyOf(spec, last), fp) : null,
  };
}
