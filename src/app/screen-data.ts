import { useMemo, useRef } from 'react';
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
 * Each row's text, computed the first time a filter reads it and kept as long as the rows are:
 * typing a filter over 100,000 rows then scans strings instead of formatting every cell on
 * every key (test/bench/RESULTS.md, dashboard-keys). Rows are the poller's immutable answers;
 * a new answer is a new array.
 */
const rowTexts = new WeakMap<unknown[], { list: ListSpec<unknown>; texts: (string | undefined)[] }>();

interface Filtered { all: unknown[]; filter: string; rows: unknown[]; at: number[] }

/** Rows matching `filter`; when the filter only grew (typing on), only the last matches are read. */
function filterRows(list: ListSpec<unknown>, all: unknown[], filter: string, last: Filtered | null): Filtered {
  let cache = rowTexts.get(all);
  if (!cache || cache.list !== list) rowTexts.set(all, (cache = { list, texts: new Array<string | undefined>(all.length) }));
  const texts = cache.texts;
  const needle = filter.toLowerCase();
  const rows: unknown[] = [];
  const at: number[] = [];
  const narrowing = last !== null && last.all === all && last.filter !== '' && filter.startsWith(last.filter);
  const n = narrowing ? last.at.length : all.length;
  for (let k = 0; k < n; k++) {
    const i = narrowing ? last.at[k] : k;
    let t = texts[i];
    if (t === undefined) texts[i] = t = rowText(list, all[i]);
    if (t.includes(needle)) {
      rows.push(all[i]);
      at.push(i);
    }
  }
  return { all, filter, rows, at };
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
  const lastFilter = useRef<Filtered | null>(null);
  const rows = useMemo(() => {
    if (!screen.list || !state.filter) return all;
    lastFilter.current = filterRows(screen.list, all, state.filter, lastFilter.current);
    return lastFilter.current.rows;
  }, [screen, all, state.filter]);
  return { resources, primary, rows, all, total: all.length };
}
