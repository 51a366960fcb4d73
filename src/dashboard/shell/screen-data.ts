import { useMemo, useReducer } from 'react';
import { useStore } from 'zustand';
import { emptyEntry } from '../state/resources.js';
import type { AnyScreen, ListSpec, ScreenContext } from '../kit/screen-api.js';
import { sortColumn, sortRows } from '../kit/sort.js';
import type { SortState } from '../kit/screen-state.js';
import type { DashboardDeps } from './deps.js';
import { filterRows } from './row-search.js';
import { screenResources } from './screen-resources.js';
import type { ScreenUiState } from '../kit/screen-state.js';
import type { ResourceEntry } from '../kit/resource.js';

export interface ScreenData {
  resources: Record<string, ResourceEntry>;
  primary: ResourceEntry;
  /** list screens: rows after the filter */
  rows: unknown[];
  /** a filter's search goes on: `rows` are its first matches */
  searching: boolean;
  /** list screens: every row, before the filter */
  all: unknown[];
  total: number;
}

/** Rows out of a list answer: data.data, a bare array, or what the screen says. */
export function extractRows(
  list: ListSpec<unknown>,
  data: unknown,
  related: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): unknown[] {
  if (data === undefined || data === null) return [];
  try {
    if (list.rows) return list.rows(data, related, extra) ?? [];
  } catch {
    return [];
  }
  if (Array.isArray(data)) return data;
  const d = (data as { data?: unknown }).data;
  return Array.isArray(d) ? d : [];
}

function rowsOf(
  rowsFrom: NonNullable<ListSpec<unknown>['rowsFrom']>,
  resources: Record<string, ResourceEntry>,
  context: ScreenContext,
): unknown[] {
  try {
    return rowsFrom(resources, context) ?? [];
  } catch {
    return [];
  }
}

const NO_ROWS: unknown[] = [];

/** The visible screen's resources and rows, from the stores. */
export function useScreenData(deps: DashboardDeps, screen: AnyScreen, state: ScreenUiState): ScreenData {
  const entries = useStore(deps.resources, (s) => s.entries);
  const logged = useStore(deps.actionLog, (s) => s.entries);
  const { requests: reqs, keys } = screenResources(screen, state);
  const resources = useMemo(() => {
    const byId: Record<string, ResourceEntry> = {};
    reqs.forEach((r, i) => (byId[r.id] = entries[keys[i]] ?? emptyEntry(keys[i])));
    return byId;
  }, [entries, reqs, keys]);
  const primaryId = screen.list?.resource ?? reqs[0]?.id;
  const primary = (primaryId && resources[primaryId]) || emptyEntry('none');
  const list = screen.list;
  const rowsFrom = list?.rowsFrom;
  const related = relatedData(reqs, primaryId, resources);
  // a 304 leaves `entries` as it is (confirmEntry), so an idle overview is not recomputed either; a
  // list joining other resources (list.rows) is made again when they change; the default rows are
  // the answer's own array, so the filter's index of them survives other answers
  const { auditKey } = deps;
  const joined = useMemo(
    () => (rowsFrom ? rowsOf(rowsFrom, resources, { auditKey }) : null),
    [rowsFrom, resources, auditKey],
  );
  const answered = useMemo(
    () => (list && !rowsFrom ? extractRows(list, primary.data, related, state.extra) : null),
    [list, rowsFrom, primary.data, related, state.extra],
  );
  const all = list?.fromActionLog ? logged : (joined ?? answered ?? NO_ROWS);
  const sorted = useMemo(() => sortedRows(screen, all, state.sort), [screen, all, state.sort]);
  const [searched, searchDone] = useReducer((n: number) => n + 1, 0);
  const filtered = useMemo(
    () =>
      screen.list && state.filter && !screen.list.serverFilter
        ? filterRows(screen.list, sorted, state.filter, searchDone)
        : { rows: sorted, complete: true },
    // `searched` changes when a search that went on between frames is complete
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [screen, sorted, state.filter, searched],
  );
  return { resources, primary, rows: filtered.rows, searching: !filtered.complete, all: sorted, total: all.length };
}

/**
 * The rows in the order the operator chose (s, S); a list the appliance pages keeps the
 * appliance's order, since sorting one page would look like sorting the whole history.
 */
function sortedRows(screen: AnyScreen, all: unknown[], sort: SortState | null | undefined): unknown[] {
  if (!screen.list || screen.list.serverOrder) return all;
  const col = sortColumn(screen.list.columns, sort);
  return col ? sortRows(all, col, sort!.descending) : all;
}

const relatedCache = new WeakMap<object, { values: unknown[]; data: Record<string, unknown> }>();

/**
 * The data of the screen's resources other than the primary, by id: the same object while none of
 * them changes, so rows joined from it are made again only when one does.
 */
function relatedData(
  reqs: { id: string }[],
  primaryId: string | undefined,
  resources: Record<string, ResourceEntry>,
): Record<string, unknown> {
  const others = reqs.filter((r) => r.id !== primaryId);
  const values = others.map((r) => resources[r.id]?.data);
  const last = relatedCache.get(reqs);
  if (last && last.values.length === values.length && last.values.every((v, i) => v === values[i])) return last.data;
  const data = Object.fromEntries(others.map((r, i) => [r.id, values[i]]));
  relatedCache.set(reqs, { values, data });
  return data;
}
