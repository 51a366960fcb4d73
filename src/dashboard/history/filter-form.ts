/** The `f` form of a history screen: the time range, the screen's filters, the page size. */
import type { FormField } from '../kit/screen-api.js';
import { parseTimeInput } from '../../text/time-input.js';
import { tableTime } from '../kit/table-time.js';
import { PAGE_SIZES, RANGES, type HistorySpec, type HistoryState } from './state.js';

const timeField = (
  name: string,
  label: string,
  initial: string | null,
  hint: string,
  after?: (form: Record<string, string>, value: string) => string | null,
): FormField => ({
  kind: 'text',
  name,
  label,
  initial: initial ?? '',
  maxLength: 40,
  hint,
  validate: (s, form) =>
    s === ''
      ? null
      : parseTimeInput(s)
        ? after && form
          ? after(form, s)
          : null
        : 'a UTC time like 2026-11-21T09:30:00Z or 2026-11-21 09:30, or 2h / 7d before now',
});

/** A custom range must end after it starts: said next to Until, before anything is sent. */
function untilAfterFrom(form: Record<string, string>, until: string): string | null {
  if (form.range !== 'custom') return null;
  const from = parseTimeInput(form.from ?? '');
  const end = parseTimeInput(until);
  if (!from || !end || Date.parse(end) > Date.parse(from)) return null;
  return `must be after From (${tableTime(from)})`;
}

/**
 * The time range select: a time typed into From or Until is a custom range at once, so that it is
 * taken as typed (choosing a range after typing still wins: the select is the operator's).
 */
export const rangeField = (initial: string): FormField => ({
  kind: 'select',
  name: 'range',
  label: 'Time range',
  initial,
  options: RANGES.map((r) => ({ value: r.id, label: r.label })),
  follows: {
    fields: ['from', 'until'],
    value: (form) => ((form.from ?? '').trim() || (form.until ?? '').trim() ? 'custom' : null),
  },
});

const selectOptions = (values: string[]) => values.map((v) => ({ value: v, label: v === '' ? 'any' : v }));

/** From and Until of a custom range: typing one makes the range custom (rangeField). */
export const customTimeFields = (h: Pick<HistoryState, 'from' | 'until'>): FormField[] => [
  timeField(
    'from',
    'From (custom)',
    h.from,
    'typed, the range is custom · inclusive, UTC, e.g. 2026-11-21T09:30:00Z or 7d (before now); empty = no lower bound',
  ),
  timeField(
    'until',
    'Until (custom)',
    h.until,
    'typed, the range is custom · exclusive, UTC; empty = up to now',
    untilAfterFrom,
  ),
];

export function filterFields(spec: HistorySpec, h: HistoryState): FormField[] {
  return [
    rangeField(h.range),
    ...customTimeFields(h),
    ...spec.filters.map((f): FormField =>
      f.options
        ? {
            kind: 'select',
            name: f.name,
            label: f.label,
            initial: h.filters[f.name] ?? '',
            options: selectOptions(f.options),
            hint: f.hint,
          }
        : {
            kind: 'text',
            name: f.name,
            label: f.label,
            initial: h.filters[f.name] ?? '',
            maxLength: 200,
            hint: f.hint ?? 'exact value; empty = any',
            validate: f.validate,
          },
    ),
    {
      kind: 'select',
      name: 'pageSize',
      label: 'Per page',
      initial: String(h.pageSize),
      options: PAGE_SIZES.map((n) => ({ value: String(n), label: String(n) })),
    },
  ];
}
