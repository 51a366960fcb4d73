import type { Page } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { decodeKeysetCursor, encodeKeysetCursor, type Key } from './cursor.js';
import { fingerprint, normalizeFilters, type TableSpec } from './filters.js';
import { fetchPage, keyAfterRows, keyOf, type Row } from './keyset.js';
import { SCAN_BUDGET, searchPlan } from './search.js';

/**
 * One page, newest first: limit + 1 rows are read to know whether more follow. A text search reads
 * the search index's candidates when they are few, else at most SCAN_BUDGET rows in time order: a
 * page that budget did not fill comes back short, with has_more and a cursor to go on from where
 * the reading stopped (search.ts).
 */
export function listPage<E>(
  db: Db,
  spec: TableSpec,
  q: { limit: number; after?: string } & Record<string, unknown>,
  toEntry: (r: Row) => E,
): Page<E> {
  const filters = normalizeFilters(spec, q);
  const fp = fingerprint(spec, filters);
  const after = q.after !== undefined ? decodeKeysetCursor(q.after, fp) : undefined;
  const fetch = { after, limit: q.limit + 1, dir: 'desc' } as const;
  const plan = filters.q !== undefined ? searchPlan(db, spec, filters.q) : undefined;
  let rows: Row[];
  let stoppedAt: Key | undefined;
  if (plan?.via === 'index') {
    rows = fetchPage(db, spec, filters, { ...fetch, match: plan.match });
  } else if (plan?.via === 'scan') {
    stoppedAt = keyAfterRows(db, spec, filters, { after, limit: SCAN_BUDGET, dir: 'desc' });
    rows = fetchPage(db, spec, filters, { ...fetch, upTo: stoppedAt });
  } else rows = fetchPage(db, spec, filters, fetch);
  const pageRows = rows.slice(0, q.limit);
  const last = pageRows[pageRows.length - 1];
  const full = rows.length > q.limit;
  // a short page whose reading stopped at the budget: more may follow from where it stopped
  const next = full && last ? keyOf(spec, last) : stoppedAt;
  return {
    data: pageRows.map(toEntry),
    has_more: next !== undefined,
    next_cursor: next !== undefined ? encodeKeysetCursor(next, fp) : null,
  };
}
