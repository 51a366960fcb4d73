/** The queries a history screen sends: the page shown, and the whole match that summaries count. */
import type { ResourceRequest, ScreenUiState } from '../kit/screen-api.js';
import { isoSeconds } from '../../text/time-input.js';
import { rangeOf, searchedState, type HistorySpec, type HistoryState } from './state.js';

/**
 * The start of a rolling range at `nowMs`, rounded down to 10 s so that polls within those 10 s
 * ask the same question (and the appliance can answer 304).
 */
export const rollingStart = (h: HistoryState, nowMs: number): string | null => {
  const ms = rangeOf(h.range).ms;
  return ms === null ? null : isoSeconds(Math.floor((nowMs - ms) / 10_000) * 10_000);
};

/** start_time/end_time of a custom range. */
export const fixedTime = (h: HistoryState): Record<string, string> =>
  h.range === 'custom' ? { ...(h.from ? { start_time: h.from } : {}), ...(h.until ? { end_time: h.until } : {}) } : {};

/** The list query of the page shown; `start` is the rolling range's start when there is one. */
export function listQuery(h: HistoryState, start: string | null, after?: string): Record<string, unknown> {
  return {
    limit: h.pageSize,
    ...fixedTime(h),
    ...(start ? { start_time: start } : {}),
    ...h.filters,
    ...(after ? { after } : {}),
  };
}

/** The screen's resources: page 1 of a "last …" range rolls with the clock; later pages are fixed. */
export function historyResources(spec: HistorySpec, state: ScreenUiState): ResourceRequest[] {
  const h = searchedState(state);
  const base = { id: spec.resourceId, route: spec.listRoute } as const;
  const total = { id: totalId(spec), route: spec.summaryRoute } as const;
  if (h.cursors.length)
    return [
      { ...base, query: listQuery(h, h.anchor, h.cursors[h.cursors.length - 1]) },
      { ...total, query: matchQuery(h, h.anchor) },
    ];
  if (rangeOf(h.range).ms !== null) {
    const rolling = { as: h.range, query: (now: number) => ({ start_time: rollingStart(h, now) }) };
    return [
      { ...base, query: listQuery(h, null), rolling },
      { ...total, query: matchQuery(h, null), rolling },
    ];
  }
  return [
    { ...base, query: listQuery(h, null) },
    { ...total, query: matchQuery(h, null) },
  ];
}

export const totalId = (spec: HistorySpec) => `${spec.resourceId}-total`;

/** The list's filters without paging: what a summary counts (the total, the groups). */
function matchQuery(h: HistoryState, start: string | null): Record<string, unknown> {
  return { ...fixedTime(h), ...(start ? { start_time: start } : {}), ...h.filters };
}

/** What a summary counts now for the list on screen: its filters and search, and its range as of `nowMs`. */
export function wholeMatchQuery(h: HistoryState, nowMs: number): Record<string, unknown> {
  return matchQuery(h, h.cursors.length && h.anchor ? h.anchor : rollingStart(h, nowMs));
}
