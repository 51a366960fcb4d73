/**
 * A history screen's (audit, journal) filters and page, as kept in state.extra, and what the
 * screen declares about its history: the routes, the filters, the groups.
 */
import type { FileRouteName } from '../../client/api-client.js';
import type { ScreenUiState } from '../kit/screen-api.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export type RangeId = '1h' | '24h' | '7d' | '30d' | 'all' | 'custom';
export const RANGES: { id: RangeId; label: string; ms: number | null }[] = [
  { id: 'all', label: 'all time', ms: null },
  { id: '1h', label: 'last hour', ms: HOUR },
  { id: '24h', label: 'last day', ms: DAY },
  { id: '7d', label: 'last 7 days', ms: 7 * DAY },
  { id: '30d', label: 'last 30 days', ms: 30 * DAY },
  { id: 'custom', label: 'custom: from / until below', ms: null },
];
export const rangeOf = (id: unknown) => RANGES.find((r) => r.id === id) ?? RANGES[0];
export const PAGE_SIZES = [50, 100, 200, 500];

/** The screen's filters and position, as kept in state.extra. */
export interface HistoryState {
  range: RangeId;
  /** RFC 3339, for the custom range only */
  from: string | null;
  until: string | null;
  /** server filters by query name (actor, action, outcome; agent, status, channel, run_id) */
  filters: Record<string, string>;
  pageSize: number;
  /** start_time frozen when paging leaves page 1 of a "last …" range (a cursor belongs to one query) */
  anchor: string | null;
  /** the `after` cursor of each page past the first */
  cursors: string[];
}

export const DEFAULT_STATE: HistoryState = {
  range: 'all',
  from: null,
  until: null,
  filters: {},
  pageSize: 50,
  anchor: null,
  cursors: [],
};

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

export function historyState(extra: Record<string, unknown>): HistoryState {
  const filters: Record<string, string> = {};
  if (extra.filters && typeof extra.filters === 'object') {
    for (const [k, v] of Object.entries(extra.filters as Record<string, unknown>))
      if (typeof v === 'string' && v !== '') filters[k] = v;
  }
  return {
    range: rangeOf(extra.range).id,
    from: str(extra.from),
    until: str(extra.until),
    filters,
    pageSize: PAGE_SIZES.includes(extra.pageSize as number) ? (extra.pageSize as number) : DEFAULT_STATE.pageSize,
    anchor: str(extra.anchor),
    cursors: Array.isArray(extra.cursors) ? extra.cursors.filter((c): c is string => typeof c === 'string') : [],
  };
}

/** Paging back to page 1: every state change that alters the query sets this too (a cursor belongs to one query). */
export const FIRST_PAGE = { cursors: [] as string[], anchor: null };

export interface FilterSpec {
  /** the query parameter */
  name: string;
  label: string;
  /** text, or a choice among `options` ('' = any) */
  options?: string[];
  hint?: string;
  validate?: (v: string) => string | null;
  /** values the appliance is known to record: `A` picks one from a list instead of typing it */
  known?: { value: string; hint?: string }[];
}

export interface HistorySpec {
  kind: 'audit' | 'journal';
  /** "audit trail" */
  title: string;
  /** "audit entries" */
  noun: string;
  /** "audit entry": one of them */
  nounOne: string;
  resourceId: string;
  listRoute: 'listAudit' | 'listJournal';
  /** counts over the whole match: the total beside the page, and the grouped view */
  summaryRoute: 'auditSummary' | 'journalSummary';
  /** what the grouped view counts by (a summary's group_by); each is also a filter of the same name */
  groups: readonly { name: string; label: string }[];
  exportRoute: FileRouteName & ('exportAudit' | 'exportJournal');
  exportCapability: string;
  filters: FilterSpec[];
}

/** The appliance's text search (`q`) takes 2 to 200 characters. */
export const SEARCH_LENGTH = { min: 2, max: 200 };

/** `/`'s text as the appliance's search, or why it is not sent (too short or too long). */
export function searchOf(filter: string): { q: string | null; why: 'short' | 'long' | null } {
  const t = filter.trim();
  if (t === '') return { q: null, why: null };
  if (t.length < SEARCH_LENGTH.min) return { q: null, why: 'short' };
  if (t.length > SEARCH_LENGTH.max) return { q: null, why: 'long' };
  return { q: t, why: null };
}

/**
 * The history state with `/`'s search as the filter `q`. Paging cursors belong to the search they
 * were made with (`pagedSearch`): once the search changes, the list starts again at page 1.
 */
export function searchedState(state: Pick<ScreenUiState, 'filter' | 'extra'>): HistoryState {
  const h = historyState(state.extra);
  const { q } = searchOf(state.filter);
  const filters = { ...h.filters };
  delete filters.q;
  if (q) filters.q = q;
  const samePages = (state.extra.pagedSearch ?? '') === (q ?? '');
  return { ...h, filters, ...(samePages ? {} : { cursors: [], anchor: null }) };
}
