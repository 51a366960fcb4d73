/** A history screen's own keys: filter, clear, page older / newer / newest, export, pick a value. */
import type { ScreenAction } from '../kit/screen-api.js';
import { parseTimeInput } from '../../text/time-input.js';
import { exportAction } from './export.js';
import { filterFields } from './filter-form.js';
import { pickFilterAction } from './pick-filter.js';
import { listQuery, rollingStart } from './query.js';
import { DEFAULT_STATE, FIRST_PAGE, historyState, rangeOf, searchedState, type HistorySpec } from './state.js';
import { describeFilters } from './summary.js';

/** f, c, ], [, {, w (and A: pick a known value): filters, paging and export; none of them changes the appliance. */
export function historyActions<Row>(spec: HistorySpec): ScreenAction<Row>[] {
  return [
    {
      key: 'f',
      label: 'filter',
      mutates: false,
      // how a history is narrowed, on every history: after the screen's own job (export, groups), before paging
      hintPriority: 58,
      async run(ctx) {
        const h = historyState(ctx.state.extra);
        const v = await ctx.form({
          title: `Filter the ${spec.title}`,
          message: 'The appliance applies the filters and pages through every match, newest first.',
          fields: filterFields(spec, h),
          submitLabel: 'apply',
        });
        if (!v) return;
        const range = rangeOf(v.range).id;
        const filters: Record<string, string> = {};
        for (const f of spec.filters)
          if (typeof v[f.name] === 'string' && v[f.name] !== '') filters[f.name] = v[f.name] as string;
        ctx.setExtra(
          {
            range,
            from: range === 'custom' ? parseTimeInput(String(v.from ?? '')) : null,
            until: range === 'custom' ? parseTimeInput(String(v.until ?? '')) : null,
            filters,
            pageSize: Number(v.pageSize) || DEFAULT_STATE.pageSize,
            ...FIRST_PAGE,
          },
          { top: true },
        );
      },
    },
    {
      intent: 'clear-filter',
      label: 'clear',
      mutates: false,
      // Esc-like: the summary says what is filtered, and ? lists it
      hintPriority: 52,
      async run(ctx) {
        ctx.setExtra({ ...DEFAULT_STATE, pageSize: historyState(ctx.state.extra).pageSize }, { top: true });
      },
    },
    {
      intent: 'next-page',
      label: 'older',
      mutates: false,
      // paging, as every long list pages: it gives way before the screen's own keys
      hintPriority: 54,
      async run(ctx) {
        const h = searchedState(ctx.state);
        // Page 1 of a rolling range: freeze its start now, so every later page continues this query.
        const anchor = h.cursors.length ? h.anchor : rollingStart(h, Date.now());
        const page = await ctx.call(spec.listRoute, { query: listQuery(h, anchor, h.cursors[h.cursors.length - 1]) });
        if (!page.has_more || !page.next_cursor) {
          return {
            title: 'No older entries',
            tone: 'info',
            summary: [
              `Page ${h.cursors.length + 1} is the last page: its last row is the oldest of the ${spec.noun} matching ${describeFilters(spec, h)}.`,
            ],
          };
        }
        ctx.setExtra(
          { anchor, cursors: [...h.cursors, page.next_cursor], pagedSearch: h.filters.q ?? '' },
          { top: true },
        );
      },
    },
    {
      intent: 'previous-page',
      label: 'newer',
      mutates: false,
      // back towards the newest: the first keys to leave a short hint line (the summary says ] older)
      hintPriority: 50,
      async run(ctx) {
        const h = searchedState(ctx.state);
        if (!h.cursors.length)
          return {
            title: 'Already on the newest page',
            tone: 'info',
            summary: ['Page 1 shows the newest entries; ] goes to older ones.'],
          };
        const cursors = h.cursors.slice(0, -1);
        ctx.setExtra({ cursors, anchor: cursors.length ? h.anchor : null }, { top: true });
      },
    },
    {
      intent: 'first-page',
      label: 'newest',
      mutates: false,
      // back towards the newest: the first keys to leave a short hint line (the summary says ] older)
      hintPriority: 50,
      async run(ctx) {
        ctx.setExtra(FIRST_PAGE, { top: true });
      },
    },
    exportAction<Row>(spec),
    ...spec.filters
      .filter((f) => f.known)
      .slice(0, 1)
      .map((f) => pickFilterAction<Row>(f)),
  ];
}
