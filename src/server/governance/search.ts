import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open.js';
import type { TableSpec } from './filters.js';

/**
 * How text search (`q`) stays cheap and bounded on the server's one thread (docs/operations.md,
 * "Limits"). A text of three or more characters asks the trigram index (migration 8) for the rows
 * holding all its trigrams; when they are at most INDEX_CANDIDATES, those rows are read, checked
 * with the LIKE and sorted: a rare text costs its few rows, whatever the trail's size. A common one
 * (or a text of two characters, which has no trigram) is looked for in time order instead, where it
 * fills a page within few rows, and that scan reads at most SCAN_BUDGET rows per request: a page
 * can then come back short with a cursor to go on from (the list). A count over more than
 * SUMMARY_SCAN_BUDGET rows is refused as too broad (the summary), rather than reading a million
 * rows in one go. Measured: test/bench/server-search.
 */
export const INDEX_CANDIDATES = 5_000;
export const SCAN_BUDGET = 20_000;
/** a count has no page to stop at: it reads the range whole, so it may read more (about 40 ms) */
export const SUMMARY_SCAN_BUDGET = 50_000;

/** The FTS5 query asking for every trigram of `text` (one quoted token each); null under 3 characters. */
export function trigramQuery(text: string): string | null {
  const chars = [...text];
  if (chars.length < 3) return null;
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(''));
  return [...grams].map((g) => `"${g.replace(/"/g, '""')}"`).join(' AND ');
}

const counts = new WeakMap<Db, Map<string, Statement>>();

/** How many rows hold every trigram of the query, counted up to `cap` + 1. */
function candidatesUpTo(db: Db, spec: TableSpec, match: string, cap: number): number {
  let m = counts.get(db);
  if (!m) counts.set(db, (m = new Map()));
  let st = m.get(spec.table);
  if (!st)
    m.set(
      spec.table,
      (st = db
        .prepare(
          `SELECT count(*) FROM (SELECT rowid FROM ${spec.searchIndex} WHERE ${spec.searchIndex} MATCH ? LIMIT ?)`,
        )
        .pluck()),
    );
  return st.get(match, cap + 1) as number;
}

export type SearchPlan =
  /** the index's candidates, at most INDEX_CANDIDATES, are read (`match` is their FTS5 query) */
  | { via: 'index'; match: string }
  /** rows in time order, at most SCAN_BUDGET a request */
  | { via: 'scan' };

/** Which way a search for `text` goes (see above). */
export function searchPlan(db: Db, spec: TableSpec, text: string): SearchPlan {
  const match = trigramQuery(text);
  if (match === null) return { via: 'scan' };
  const rows = candidatesUpTo(db, spec, match, INDEX_CANDIDATES);
  return rows <= INDEX_CANDIDATES ? { via: 'index', match } : { via: 'scan' };
}

/** `FROM` of the index's candidates joined to their rows, candidates first (CROSS JOIN keeps that order). */
export const candidatesFrom = (spec: TableSpec): string =>
  `(SELECT rowid AS hit FROM ${spec.searchIndex} WHERE ${spec.searchIndex} MATCH @match) CROSS JOIN ${spec.table} ON ${spec.table}.seq = hit`;
