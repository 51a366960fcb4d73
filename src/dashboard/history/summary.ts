/** What a history list says about itself: the line above it, the empty text, its order. */
import type { Summary } from '../../contract/index.js';
import type { ListView, ResourceEntry } from '../kit/screen-api.js';
import { tableTime } from '../kit/table-time.js';
import { totalId } from './query.js';
import { thousands } from '../../text/thousands.js';
import {
  historyState,
  rangeOf,
  SEARCH_LENGTH,
  searchedState,
  searchOf,
  type HistorySpec,
  type HistoryState,
} from './state.js';

/**
 * The appliance pages a history newest first and `n`/`p` walk its pages: sorting one page here
 * would pass for the order of the whole history, so the list keeps the appliance's order.
 */
export const SERVER_ORDER = {
  column: 'Time (UTC)',
  descending: true,
  note: 'sorted by time on the server, newest first (paged there, not sorted again here)',
};

/** "1,204 entries in all", "61 match "denied"", "counting…": the whole match, from the summary. */
function matchCount(
  spec: HistorySpec,
  h: HistoryState,
  filter: string,
  total: ResourceEntry | undefined,
): string | null {
  const { why } = searchOf(filter);
  if (why === 'short') return `type ${SEARCH_LENGTH.min} or more characters to search the whole ${spec.title}`;
  if (why === 'long') return `a search of the ${spec.title} takes at most ${SEARCH_LENGTH.max} characters`;
  const n = (total?.data as Summary | undefined)?.total;
  const searched = h.filters.q
    ? `${n === 1 ? 'matches' : 'match'} "${h.filters.q}"`
    : `${n === 1 ? spec.nounOne : spec.noun} in all`;
  if (typeof n === 'number') return `${thousands(n)} ${searched}`;
  if (total?.status === 'error' && h.filters.q)
    return tooCommon(total.error)
      ? `matches of "${h.filters.q}" not counted: too common over this range (f narrows it)`
      : `matches of "${h.filters.q}" not counted (see the error above)`;
  if (total?.status === 'error') return null;
  return h.filters.q ? `counting matches of "${h.filters.q}"…` : 'counting…';
}

/**
 * "last 7 days · actor alice · outcome denied", or "all time, no filters"; `start` names the exact
 * start of a "last …" range (the one an export sends) instead of the rolling label.
 */
export function describeFilters(
  spec: HistorySpec,
  h: HistoryState,
  start: string | null = null,
  o: { search?: boolean } = {},
): string {
  const r = rangeOf(h.range);
  const since = start ?? (h.cursors.length ? h.anchor : null);
  let range: string;
  if (r.id === 'custom') {
    range =
      h.from || h.until
        ? [h.from ? `from ${tableTime(h.from)}` : '', h.until ? `until ${tableTime(h.until)}` : '']
            .filter(Boolean)
            .join(' ')
        : 'all time';
  } else if (r.ms !== null && since) {
    range = `since ${tableTime(since)} (${r.label})`;
  } else range = r.label;
  const named = spec.filters
    .filter((f) => h.filters[f.name])
    .map((f) => `${f.label.toLowerCase()} ${h.filters[f.name]}`);
  if (h.filters.q && o.search !== false) named.push(`search "${h.filters.q}"`);
  return named.length ? [range, ...named].join(' · ') : `${range}, no other filters`;
}

/**
 * "1,204 audit entries in all · last 7 days · actor alice · page 3 · 50 per page · more (] older)": what is shown
 * and under which filters first, so that a narrow terminal cuts the paging words rather than a filter.
 */
export function pageSummary(spec: HistorySpec, rows: unknown[], view: ListView | undefined): string {
  const h = view ? searchedState(view.state) : historyState({});
  const page = h.cursors.length + 1;
  const hasMore = (view?.data as { has_more?: unknown } | undefined)?.has_more === true;
  // Without the envelope (a caller other than the shell) whether more follow is unknown: say nothing.
  // a search reads a bounded part of the trail per page: a short page with more is where it stopped
  // the key as the operator has it bound (a config may rebind next-page)
  const older = view?.keyOf ? view.keyOf('next-page') : ']';
  const where = !view
    ? null
    : hasMore
      ? rows.length < h.pageSize
        ? `search read this far, more${older ? ` (${older} reads older)` : ''}`
        : `more${older ? ` (${older} older)` : ''}`
      : rows.length === 0
        ? 'no entries'
        : page > 1
          ? 'oldest page'
          : 'all shown';
  const count = view?.resources ? matchCount(spec, h, view.state.filter, view.resources[totalId(spec)]) : null;
  // the count names the search ("61 match "denied""): said twice, it pushed the paging words off a 120-column line
  const filters = describeFilters(spec, h, null, { search: !count || !h.filters.q });
  return [count, filters, `page ${page}`, `${h.pageSize} per page`, where].filter(Boolean).join(' · ');
}

export function emptyText(spec: HistorySpec): string {
  return `No ${spec.noun} match here. If the line above says the search read this far, ] reads older ones; else nothing happened in this range with these filters. f changes them, c clears them.`;
}

/**
 * The appliance's refusal to count a search text too common over the range (422 naming `q`): the
 * page summary says so where the count would be, and no error banner shouts it (the page is fine).
 */
const tooCommon = (error: unknown): boolean => {
  const e = error as { status?: unknown; invalidParams?: { name: string }[] } | null;
  return e?.status === 422 && Array.isArray(e.invalidParams) && e.invalidParams.some((p) => p.name === 'q');
};

/** A history screen's saysError: its total's "too common" is told in the page summary. */
export const historySaysError =
  (spec: HistorySpec) =>
  (resourceId: string, error: unknown): boolean =>
    resourceId === totalId(spec) && tooCommon(error);
