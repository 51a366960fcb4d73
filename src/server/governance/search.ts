import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/sqlite-driver.js';
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
/** a count has no page to stop at: it reads the range whole, so it may read more (its cost: docs/performance.md) */
export const SUMMARY_SCAN_BUDGET = 50_000;
/**
 * An export with a text search reads this many rows a turn of the event loop (a few ms: docs/performance.md), so that
 * a caller's few exports under way add little to every other request's wait.
 */
export const EXPORT_WINDOW = 5_000;

/** The distinct trigrams of `text`, by code point, in order; none under 3 characters. */
export function trigramsOf(text: string): string[] {
  const chars = [...text];
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(''));
  return [...grams];
}

/** An FTS5 query asking for every one of `grams` (each quoted: any text is a query, never syntax). */
export const trigramQuery = (grams: readonly string[]): string =>
  grams.map((g) => `"${g.replace(/"/g, '""')}"`).join(' AND ');

/**
 * Trigrams looked up per search, spread over the text, and how many of the rarest are asked for
 * together. A text whose trigrams are each common but never together made FTS5 intersect every one
 * of their lists, whole (hundreds of ms over 1,000,000 entries, though nothing matched): each one
 * looked up is read only up to INDEX_CANDIDATES + 1 rows, and the query asks for the rarest few,
 * the first of which holds at most INDEX_CANDIDATES. The LIKE over the rows still decides.
 */
const LOOKED_UP = 8;
const ASKED = 3;

const counts = new WeakMap<Db, Map<string, Statement>>();

/** How many rows the FTS5 query matches, counted up to `cap` + 1. */
function matchesUpTo(db: Db, spec: TableSpec, match: string, cap: number): number {
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

/** Up to `n` of `items`, spread evenly from the first to the last. */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))]);
}

export type SearchPlan =
  /** the index's candidates, at most INDEX_CANDIDATES, are read (`match` is their FTS5 query) */
  | { via: 'index'; match: string }
  /** rows in time order, at most SCAN_BUDGET a request */
  | { via: 'scan' };

/** Which way a search for `text` goes (see above). */
export function searchPlan(db: Db, spec: TableSpec, text: string): SearchPlan {
  const grams = trigramsOf(text);
  if (!grams.length) return { via: 'scan' };
  const looked = spread(grams, LOOKED_UP)
    .map((g) => ({ g, n: matchesUpTo(db, spec, trigramQuery([g]), INDEX_CANDIDATES) }))
    .sort((a, b) => a.n - b.n);
  if (looked[0].n > INDEX_CANDIDATES) return { via: 'scan' };
  return { via: 'index', match: trigramQuery(looked.slice(0, ASKED).map((l) => l.g)) };
}

/** `FROM` of the index's candidates joined to their rows, candidates first (CROSS JOIN keeps that order). */
export const candidatesFrom = (spec: TableSpec): string =>
  `(SELECT rowid AS hit FROM ${spec.searchIndex} WHERE ${spec.searchIndex} MATCH @match) CROSS JOIN ${spec.table} ON ${spec.table}.seq = hit`;
