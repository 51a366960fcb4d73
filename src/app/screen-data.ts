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
  const needle = filter.toLowerCase();
  return list.columns.some((c) => cellText(c, row).toLowerCase().includes(needle));
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
  const rows = useMemo(
    () => (screen.list && state.filter ? all.filter((r) => rowMatches(screen.list!, r, state.filter)) : all),
    [screen, all, state.filter],
  );
  return { resources, primary, rows, all, total: all.length };
}
