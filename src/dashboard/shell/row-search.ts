import type { ListSpec } from '../kit/screen-api.js';
import { cellText } from '../kit/table-layout.js';

// The `/` filter's search over a list's rows: by a mask of each row's characters first, then
// its text, in slices between frames on a long list, with the answers for recent filters kept.

/** A row's cells, lower-cased, joined by a character no one types (a match stays in one cell). */
function rowText(list: ListSpec<unknown>, row: unknown): string {
  let t = '';
  for (const c of list.columns) t += `${cellText(c, row).toLowerCase()}\u0000`;
  return t;
}

/**
 * What a filter reads of a list: each row's text, and a mask of the characters in it. Each row's
 * are made the first time a search reaches the row and kept as long as the rows are (rows are the
 * poller's immutable answers; a new answer is a new array), so the first search over 100,000 rows
 * makes them in the same slices between frames as the search itself instead of all at once
 * (about a second here, docs/performance.md). A row can only match a filter
 * whose characters it all contains, so a search reads masks first and texts only for the rows
 * whose mask covers the filter's.
 */
interface SearchIndex {
  list: ListSpec<unknown>;
  all: unknown[];
  /** '' until made */
  texts: string[];
  /** 0 until made (a made mask has the top bit, which only widens what it lets through) */
  masks: Uint32Array;
  /** rows whose text and mask are made */
  made: number;
  /** results by filter text, for typing on and deleting back (Backspace), least recently used first */
  results: Map<string, Result>;
  /** rows held by `results` */
  kept: number;
  /** the search the last key started, while it goes on between frames */
  pending: Search | null;
}

interface Result {
  /** the matching rows' positions in the list, for a longer filter to search */
  at: number[];
  /** the matching rows, made as they are found: the frame that shows a result does not copy it */
  rows: unknown[];
}

interface Search extends Result {
  needle: string;
  want: number;
  /** the rows searched: a shorter filter's result, or null for all */
  from: number[] | null;
  /** how far the search got in them */
  k: number;
  scheduled: boolean;
}
const indexes = new WeakMap<unknown[], SearchIndex>();
const RESULTS_KEPT = 64;
/** Matching rows the results of a list may hold in all, before the least recently used go. */
const RESULT_ROWS_KEPT = 1_000_000;

function searchIndex(list: ListSpec<unknown>, all: unknown[]): SearchIndex {
  let index = indexes.get(all);
  if (!index || index.list !== list) {
    const texts = new Array<string>(all.length).fill('');
    indexes.set(
      all,
      (index = {
        list,
        all,
        texts,
        masks: new Uint32Array(all.length),
        made: 0,
        results: new Map(),
        kept: 0,
        pending: null,
      }),
    );
  }
  return index;
}

/** One bit per letter or digit (a-z and 0-9 share bits by pairs above 31), one for anything else. */
function maskOf(text: string): number {
  let mask = 0;
  for (let i = 0; i < text.length; i++) mask |= bitOf(text.charCodeAt(i));
  return mask >>> 0;
}

function bitOf(code: number): number {
  if (code >= 97 && code <= 122) return 1 << (code - 97);
  if (code >= 48 && code <= 57) return 1 << (26 + ((code - 48) % 5));
  return 1 << 31;
}

/** A new search for `needle`, over the result of the longest filter already answered that it extends. */
function startSearch(index: SearchIndex, needle: string): Search {
  let from: number[] | null = null;
  for (let n = needle.length - 1; n > 0 && !from; n--) from = index.results.get(needle.slice(0, n))?.at ?? null;
  return { needle, want: maskOf(needle), from, k: 0, at: [], rows: [], scheduled: false };
}

/** Searches on until the end, `enough` matches, or `untilMs`; true at the end. */
function advance(index: SearchIndex, s: Search, enough: number, untilMs: number): boolean {
  const { texts, masks, list, all } = index;
  const { from, want, needle, at, rows } = s;
  const total = from ? from.length : texts.length;
  while (s.k < total) {
    // making a row's text costs far more than testing its mask: shorter steps between clock reads
    const end = Math.min(total, s.k + (index.made < all.length ? 32 : 2048));
    for (let k = s.k; k < end; k++) {
      const i = from ? from[k] : k;
      let mask = masks[i];
      if (mask === 0) {
        texts[i] = rowText(list, all[i]);
        mask = masks[i] = (maskOf(texts[i]) | 0x80000000) >>> 0;
        index.made++;
      }
      if ((mask & want) >>> 0 === want && texts[i].includes(needle)) {
        at.push(i);
        rows.push(all[i]);
      }
    }
    s.k = end;
    if (s.k < total && (at.length >= enough || performance.now() >= untilMs)) return false;
  }
  keep(index, needle, { at, rows });
  if (index.pending === s) index.pending = null;
  return true;
}

function keep(index: SearchIndex, needle: string, result: Result): void {
  const { results } = index;
  results.set(needle, result);
  index.kept += result.rows.length;
  for (const [oldest, r] of results) {
    if (results.size <= RESULTS_KEPT && index.kept <= RESULT_ROWS_KEPT) break;
    if (oldest === needle) break;
    results.delete(oldest);
    index.kept -= r.rows.length;
  }
}

/** Matches shown by the first frame of a search over a long list: more than a screenful. */
const FIRST_MATCHES = 300;
/** Time a search takes on a key, for the key's frame. */
const SLICE_MS = 3;
/**
 * Time it then takes at once between frames: a key that arrives meanwhile waits for the slice to
 * end, and the first search over 100,000 rows runs for about a second of these.
 */
const BETWEEN_FRAMES_MS = 1;

export interface Filtered {
  rows: unknown[];
  /** false while the search goes on: `rows` are the first matches, in list order */
  complete: boolean;
}

/**
 * The rows whose cells contain `filter`, ignoring case. Without `onComplete` the whole list is
 * searched at once. With it, a key's frame gets the first matches (enough to fill the screen)
 * and the search goes on in slices between frames, then calls `onComplete`: on a list of
 * 100,000 rows a common word matches most of them, and reading them all on each key made the
 * frame wait (docs/performance.md).
 */
export function filterRows(list: ListSpec<unknown>, all: unknown[], filter: string, onComplete?: () => void): Filtered {
  const index = searchIndex(list, all);
  const needle = filter.toLowerCase();
  const known = index.results.get(needle);
  if (known) {
    // most recently used: the last to go
    index.results.delete(needle);
    index.results.set(needle, known);
    return { rows: known.rows, complete: true };
  }
  const s = index.pending?.needle === needle ? index.pending : startSearch(index, needle);
  index.pending = s;
  if (advance(index, s, onComplete ? FIRST_MATCHES : Infinity, onComplete ? performance.now() + SLICE_MS : Infinity))
    return { rows: s.rows, complete: true };
  if (!s.scheduled) {
    s.scheduled = true;
    const step = () => {
      // a later key started another search: this one is dropped
      if (index.pending !== s) return;
      if (advance(index, s, Infinity, performance.now() + BETWEEN_FRAMES_MS)) onComplete!();
      else setImmediate(step);
    };
    setImmediate(step);
  }
  // the search goes on adding to its rows: the frame gets those found so far, as they are now
  return { rows: s.rows.slice(), complete: false };
}
