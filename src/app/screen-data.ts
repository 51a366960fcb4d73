import { useMemo } from 'react';
import { useStore } from 'zustand';
import { emptyEntry, resourceKey, type ResourceEntry } from '../store/resources.js';
import type { ScreenUiState } from '../store/ui.js';
import type { AnyScreen, ListSpec } from '../ui/screen-api.js';
import { cellText } from '../ui/table-layout.js';
import type { DashboardDeps } from './deps.js';

export interface ScreenData {
  resources: Record<string, ResourceEntry>;
  primary: ResourceEntry;
  /** list screens: rows after the filter */
  rows: unknown[];
  /** list screens: every row, before the filter */
  all: unknown[];
  total: number;
}

/** Rows out of a list answer: data.data, a bare array, or what the screen says. */
export function extractRows(list: ListSpec<unknown>, data: unknown): unknown[] {
  if (data === undefined || data === null) return [];
  try {
    if (list.rows) return list.rows(data) ?? [];
  } catch {
    return [];
  }
  if (Array.isArray(data)) return data;
  const d = (data as { data?: unknown }).data;
  return Array.isArray(d) ? d : [];
}

export function rowMatches(list: ListSpec<unknown>, row: unknown, filter: string): boolean {
  return rowText(list, row).includes(filter.toLowerCase());
}

/** A row's cells, lower-cased, joined by a character no one types (a match stays in one cell). */
function rowText(list: ListSpec<unknown>, row: unknown): string {
  let t = '';
  for (const c of list.columns) t += `${cellText(c, row).toLowerCase()}\u0000`;
  return t;
}

/**
 * What a filter reads of a list: each row's text, and a mask of the characters in it. Computed
 * the first time a filter reads the list and kept as long as the rows are (rows are the poller's
 * immutable answers; a new answer is a new array). A row can only match a filter whose characters
 * it all contains, so a scan of 100,000 rows reads masks first and texts only for the rows whose
 * mask covers the filter's (test/bench/RESULTS.md, dashboard-keys).
 */
interface SearchIndex {
  list: ListSpec<unknown>;
  texts: string[];
  masks: Uint32Array;
  /** results by filter text, for typing on and deleting back (Backspace) */
  results: Map<string, number[]>;
}
const indexes = new WeakMap<unknown[], SearchIndex>();
const RESULTS_KEPT = 64;

function searchIndex(list: ListSpec<unknown>, all: unknown[]): SearchIndex {
  let index = indexes.get(all);
  if (!index || index.list !== list) {
    const texts = all.map((row) => rowText(list, row));
    const masks = new Uint32Array(texts.length);
    texts.forEach((t, i) => (masks[i] = maskOf(t)));
    indexes.set(all, (index = { list, texts, masks, results: new Map() }));
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

/** Indexes of the rows matching `needle` (lower-cased), from the longest filter already answered that it extends. */
function matching(index: SearchIndex, needle: string): number[] {
  const known = index.results.get(needle);
  if (known) return known;
  let from: number[] | null = null;
  for (let n = needle.length - 1; n > 0 && !from; n--) from = index.results.get(needle.slice(0, n)) ?? null;
  const want = maskOf(needle);
  const { texts, masks } = index;
  const at: number[] = [];
  const total = from ? from.length : texts.length;
  for (let k = 0; k < total; k++) {
    const i = from ? from[k] : k;
    if (((masks[i] & want) >>> 0) === want && texts[i].includes(needle)) at.push(i);
  }
  if (index.results.size >= RESULTS_KEPT) index.results.clear();
  index.results.set(needle, at);
  return at;
}

/** The rows whose cells contain `filter`, ignoring case. */
export function filterRows(list: ListSpec<unknown>, all: unknown[], filter: string): unknown[] {
  const at = matching(searchIndex(list, all), filter.toLowerCase());
  return at.map((i) => all[i]);
}

/** The visible screen's resources and rows, from the stores. */
export function useScreenData(deps: DashboardDeps, screen: AnyScreen, state: ScreenUiState): ScreenData {
  const entries = useStore(deps.resources, (s) => s.entries);
  const reqs = useMemo(() => screen.resources(state), [screen, state]);
  const resources: Record<string, ResourceEntry> = {};
  for (const r of reqs) {
    const key = resourceKey(r);
    resources[r.id] = entries[key] ?? emptyEntry(key);
  }
  const primaryId = screen.list?.resource ?? reqs[0]?.id;
  const primary = (primaryId && resources[primaryId]) || emptyEntry('none');
  const all = useMemo(() => (screen.list ? extractRows(screen.list, primary.data) : []), [screen, primary.data]);
  const rows = useMemo(() => (screen.list && state.filter ? filterRows(screen.list, all, state.filter) : all), [screen, all, state.filter]);
  return { resources, primary, rows, all, total: all.length };
}
