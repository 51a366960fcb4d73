/**
 * What the audit and journal screens share: filters kept in state.extra and sent to the server,
 * cursor paging through the whole history (a stack of `after` cursors), and the export.
 */
import { createReadStream } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { FileRouteName } from '../../src/client/api-client.js';
import { ApiError, TransportError } from '../../src/client/errors.js';
import type { Summary } from '../../src/contract/index.js';
import type { ResourceEntry, ResourceRequest } from '../../src/store/resources.js';
import type { ActionContext, FormField, ListView, ScreenAction, ScreenUiState } from '../../src/ui/screen-api.js';
import { bytes } from '../../src/ui/format.js';

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
const rangeOf = (id: unknown) => RANGES.find((r) => r.id === id) ?? RANGES[0];
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

/**
 * The appliance pages a history newest first and `n`/`p` walk its pages: sorting one page here
 * would pass for the order of the whole history, so the list keeps the appliance's order.
 */
export const SERVER_ORDER = {
  column: 'Time (UTC)',
  descending: true,
  note: 'sorted by time on the server, newest first (paged there, not sorted again here)',
};

/** RFC 3339 UTC, whole seconds. */
export const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** 2026-11-21 09:30:12: the table's time, UTC, to the second (the detail view has the exact value). */
export function tableTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 19).replace('T', ' ') : iso;
}

/**
 * The start of a rolling range at `nowMs`, rounded down to 10 s so that polls within those 10 s
 * ask the same question (and the appliance can answer 304).
 */
const rollingStart = (h: HistoryState, nowMs: number): string | null => {
  const ms = rangeOf(h.range).ms;
  return ms === null ? null : isoSeconds(Math.floor((nowMs - ms) / 10_000) * 10_000);
};

/** start_time/end_time of a custom range. */
const fixedTime = (h: HistoryState): Record<string, string> =>
  h.range === 'custom' ? { ...(h.from ? { start_time: h.from } : {}), ...(h.until ? { end_time: h.until } : {}) } : {};

/** The list query of the page shown; `start` is the rolling range's start when there is one. */
function listQuery(h: HistoryState, start: string | null, after?: string): Record<string, unknown> {
  return {
    limit: h.pageSize,
    ...fixedTime(h),
    ...(start ? { start_time: start } : {}),
    ...h.filters,
    ...(after ? { after } : {}),
  };
}

export interface FilterSpec {
  /** the query parameter */
  name: string;
  label: string;
  /** text, or a choice among `options` ('' = any) */
  options?: string[];
  hint?: string;
  validate?: (v: string) => string | null;
  /** values the appliance is known to record: `a` picks one from a list instead of typing it */
  known?: { value: string; hint?: string }[];
}

export interface HistorySpec {
  kind: 'audit' | 'journal';
  /** "audit trail" */
  title: string;
  /** "audit entries" */
  noun: string;
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

const totalId = (spec: HistorySpec) => `${spec.resourceId}-total`;

/** The list's filters without paging: what a summary counts (the total, the groups). */
function matchQuery(h: HistoryState, start: string | null): Record<string, unknown> {
  return { ...fixedTime(h), ...(start ? { start_time: start } : {}), ...h.filters };
}

/** What a summary counts now for the list on screen: its filters and search, and its range as of `nowMs`. */
export function wholeMatchQuery(h: HistoryState, nowMs: number): Record<string, unknown> {
  return matchQuery(h, h.cursors.length && h.anchor ? h.anchor : rollingStart(h, nowMs));
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
  const searched = h.filters.q ? `match "${h.filters.q}"` : `${spec.noun} in all`;
  if (typeof n === 'number') return `${n.toLocaleString('en-US')} ${searched}`;
  if (total?.status === 'error')
    return h.filters.q ? `matches of "${h.filters.q}" not counted (see the error above)` : null;
  return h.filters.q ? `counting matches of "${h.filters.q}"…` : 'counting…';
}

/**
 * "last 7 days · actor alice · outcome denied", or "all time, no filters"; `start` names the exact
 * start of a "last …" range (the one an export sends) instead of the rolling label.
 */
export function describeFilters(spec: HistorySpec, h: HistoryState, start: string | null = null): string {
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
  if (h.filters.q) named.push(`search "${h.filters.q}"`);
  return named.length ? [range, ...named].join(' · ') : `${range}, no other filters`;
}

/** "1,204 audit entries in all · page 3 · 50 per page · more (n) · last 7 days · actor alice". */
export function pageSummary(spec: HistorySpec, rows: unknown[], view: ListView | undefined): string {
  const h = view ? searchedState(view.state) : historyState({});
  const page = h.cursors.length + 1;
  const hasMore = (view?.data as { has_more?: unknown } | undefined)?.has_more === true;
  // Without the envelope (a caller other than the shell) whether more follow is unknown: say nothing.
  const where = !view
    ? null
    : hasMore
      ? 'more (n older)'
      : rows.length === 0
        ? 'no entries'
        : page > 1
          ? 'oldest page'
          : 'all shown';
  const count = view?.resources ? matchCount(spec, h, view.state.filter, view.resources[totalId(spec)]) : null;
  return [count, `page ${page}`, `${h.pageSize} per page`, where, describeFilters(spec, h)].filter(Boolean).join(' · ');
}

export function emptyText(spec: HistorySpec): string {
  return `No ${spec.noun} match: nothing happened in this range with these filters. f changes them, c clears them.`;
}

/** Accepts RFC 3339 UTC, or 2026-11-21 / 2026-11-21 09:30 (UTC); null when it is not a time. */
export function parseTimeInput(raw: string): string | null {
  const t = raw.trim();
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2}(?:\.\d{1,9})?)?)?(Z|z)?$/.exec(t);
  if (!m) return null;
  const value = `${m[1]}T${m[2] ?? '00:00'}${m[3] ?? ':00'}Z`;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== m[1]) return null;
  return value;
}
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
        : 'a UTC time like 2026-11-21T09:30:00Z or 2026-11-21 09:30',
});

/** A custom range must end after it starts: said next to Until, before anything is sent. */
function untilAfterFrom(form: Record<string, string>, until: string): string | null {
  if (form.range !== 'custom') return null;
  const from = parseTimeInput(form.from ?? '');
  const end = parseTimeInput(until);
  if (!from || !end || Date.parse(end) > Date.parse(from)) return null;
  return `must be after From (${tableTime(from)})`;
}

const selectOptions = (values: string[]) => values.map((v) => ({ value: v, label: v === '' ? 'any' : v }));

function filterFields(spec: HistorySpec, h: HistoryState): FormField[] {
  return [
    {
      kind: 'select',
      name: 'range',
      label: 'Time range',
      initial: h.range,
      options: RANGES.map((r) => ({ value: r.id, label: r.label })),
    },
    timeField(
      'from',
      'From (custom)',
      h.from,
      'custom range only: inclusive, UTC, e.g. 2026-11-21T09:30:00Z; empty = no lower bound',
    ),
    timeField(
      'until',
      'Until (custom)',
      h.until,
      'custom range only: exclusive, UTC; empty = up to now',
      untilAfterFrom,
    ),
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

const restart = { cursors: [] as string[], anchor: null };

/** f, c, n, p, t, e (and a: pick a known value): filters, paging and export; none of them changes the appliance. */
export function historyActions<Row>(spec: HistorySpec): ScreenAction<Row>[] {
  return [
    {
      key: 'f',
      label: 'filter',
      mutates: false,
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
            ...restart,
          },
          { top: true },
        );
      },
    },
    {
      key: 'c',
      label: 'clear',
      mutates: false,
      async run(ctx) {
        ctx.setExtra({ ...DEFAULT_STATE, pageSize: historyState(ctx.state.extra).pageSize }, { top: true });
      },
    },
    {
      key: 'n',
      label: 'older',
      mutates: false,
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
      key: 'p',
      label: 'newer',
      mutates: false,
      async run(ctx) {
        const h = searchedState(ctx.state);
        if (!h.cursors.length)
          return {
            title: 'Already on the newest page',
            tone: 'info',
            summary: ['Page 1 shows the newest entries; n goes to older ones.'],
          };
        const cursors = h.cursors.slice(0, -1);
        ctx.setExtra({ cursors, anchor: cursors.length ? h.anchor : null }, { top: true });
      },
    },
    {
      key: 't',
      label: 'newest',
      mutates: false,
      async run(ctx) {
        ctx.setExtra(restart, { top: true });
      },
    },
    exportAction<Row>(spec),
    ...spec.filters
      .filter((f) => f.known)
      .slice(0, 1)
      .map((f) => pickFilterAction<Row>(f)),
  ];
}

/** "gateway.key.*" for each prefix that two or more known values share: one pick for a family. */
function families(values: string[]): string[] {
  const count = new Map<string, number>();
  for (const v of values) {
    const dot = v.lastIndexOf('.');
    if (dot > 0) count.set(`${v.slice(0, dot)}.*`, (count.get(`${v.slice(0, dot)}.*`) ?? 0) + 1);
  }
  return [...count]
    .filter(([, n]) => n > 1)
    .map(([p]) => p)
    .sort();
}

/** a: sets a filter to a value picked from those the appliance records, or to any. */
function pickFilterAction<Row>(f: FilterSpec): ScreenAction<Row> {
  const name = f.label.toLowerCase();
  return {
    key: 'a',
    label: `pick ${name}`,
    mutates: false,
    async run(ctx) {
      const h = historyState(ctx.state.extra);
      const now = h.filters[f.name] ?? '';
      // first, so that a hint cut at the dialog's edge still says it
      const hint = (v: string, what: string) => (v === now ? `(current) ${what}` : what);
      const known = [...f.known!].sort((a, b) => (a.value < b.value ? -1 : 1));
      const picked = await ctx.pick<string>({
        title: `Show one ${name}`,
        message: now && !known.some((k) => k.value === now) ? `Now: ${now} (typed with f).` : undefined,
        items: [
          { value: '', label: `any ${name}`, hint: hint('', 'no filter') },
          ...families(known.map((k) => k.value)).map((p) => ({
            value: p,
            label: p,
            hint: hint(p, `every ${p.slice(0, -2)} ${name}`),
          })),
          ...known.map((k) => ({ value: k.value, label: k.value, hint: hint(k.value, k.hint ?? '') })),
        ],
      });
      if (picked === null || picked === now) return;
      const filters = { ...h.filters, [f.name]: picked };
      if (picked === '') delete filters[f.name];
      ctx.setExtra({ filters, ...restart }, { top: true });
    },
  };
}

/** 20261121T093012Z: sortable and safe in a file name. */
const fileStamp = (ms: number) => isoSeconds(ms).replace(/[-:]/g, '');

function exportAction<Row>(spec: HistorySpec): ScreenAction<Row> {
  return {
    key: 'e',
    label: 'export',
    mutates: false,
    capability: spec.exportCapability,
    async run(ctx) {
      const h = searchedState(ctx.state);
      // The range of the pages on screen: past page 1 the start frozen when paging began, on
      // page 1 the rolling start as of now; the dialog, the request and the result all say this one.
      const start = h.cursors.length && h.anchor ? h.anchor : rollingStart(h, Date.now());
      const fileName = `${spec.kind}-${fileStamp(Date.now())}.csv`;
      const defaultPath = ctx.exportFolder ? join(ctx.exportFolder, fileName) : `./${fileName}`;
      const v = await ctx.form({
        title: `Export the ${spec.title}`,
        message: [`Filters: ${describeFilters(spec, h, start)}.`, 'Every match is written (all pages), oldest first.'],
        fields: [
          {
            kind: 'select',
            name: 'format',
            label: 'Format',
            options: [
              { value: 'csv', label: 'csv (RFC 4180, header row)' },
              { value: 'jsonl', label: 'jsonl (one JSON object per line)' },
            ],
          },
          {
            kind: 'text',
            name: 'path',
            label: 'File',
            initial: defaultPath,
            required: true,
            maxLength: 1024,
            hint: `relative to ${process.cwd()}`,
          },
        ],
        submitLabel: 'export',
      });
      if (!v) return;
      const format = v.format === 'jsonl' ? 'jsonl' : 'csv';
      let path = String(v.path);
      if (path === defaultPath && format === 'jsonl') path = path.replace(/\.csv$/, '.jsonl');
      const dest = resolve(process.cwd(), path.replace(/^~(?=\/|$)/, homedir()));
      if (await checkDestination(dest)) {
        const replace = await ctx.confirm({
          title: 'Replace the file?',
          message: [`${dest} already exists.`, 'The export would replace it.'],
          confirmLabel: 'Replace',
          danger: true,
        });
        if (!replace) return;
      }
      return await runExport(ctx, spec, h, start, format, dest);
    },
  };
}

async function runExport(
  ctx: ActionContext,
  spec: HistorySpec,
  h: HistoryState,
  start: string | null,
  format: 'csv' | 'jsonl',
  dest: string,
) {
  const query = { format, ...fixedTime(h), ...(start ? { start_time: start } : {}), ...h.filters };
  const p = ctx.progress({
    title: `Exporting the ${spec.title} (${format})`,
    lines: ['waiting for the appliance…', `to ${dest}`],
  });
  const began = Date.now();
  const rowsSoFar = (lines: number) => Math.max(0, format === 'csv' ? lines - 1 : lines);
  let result;
  try {
    result = await ctx.download(
      spec.exportRoute,
      query,
      dest,
      (pr) =>
        p.update({
          lines: [
            `${rowsSoFar(pr.lines).toLocaleString('en-US')} rows · ${bytes(pr.bytes)}${pr.total ? ` of ${bytes(pr.total)}` : ''} · ${((Date.now() - began) / 1000).toFixed(1)} s`,
            `to ${dest}`,
            ...(pr.total ? [] : ['The appliance streams the file: its size is known only at the end.']),
          ],
          ...(pr.total ? { fraction: pr.bytes / pr.total } : {}),
        }),
      p.signal,
    );
  } catch (err) {
    if (p.signal.aborted) {
      return {
        title: 'Export stopped',
        tone: 'warn' as const,
        summary: ['You stopped the export: no file was written (the partial file was removed).'],
      };
    }
    throw writeError(err, dest);
  } finally {
    p.close();
  }
  const rows = format === 'csv' ? await csvRecords(dest) : result.lines;
  return {
    title: 'Export written',
    tone: 'ok' as const,
    summary: [
      `rows    ${rows.toLocaleString('en-US')}`,
      `bytes   ${result.bytes.toLocaleString('en-US')} (${bytes(result.bytes)})`,
      `path    ${result.path}`,
      `sha256  ${result.sha256}`,
      '',
      `${format}, oldest first; ${describeFilters(spec, h, start)}.`,
      `The appliance records the export itself in the audit trail (${spec.kind}.export${result.requestId ? `, request ${result.requestId}` : ''}).`,
    ],
  };
}

/** Refuses a destination that cannot be written, in words; true when a file is already there. */
async function checkDestination(dest: string): Promise<boolean> {
  // node:fs/promises loads here, not with the dashboard: an export is rare, every start is not.
  // Not with import(): the dashboard's bundle runs from V8's code cache, where Node 20 has no
  // loader for a dynamic import (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING from the second start on).
  const { access, constants, stat } = process.getBuiltinModule('node:fs/promises');
  const dir = dirname(dest);
  const st = await stat(dir).catch((err: NodeJS.ErrnoException) => {
    throw new Error(
      err.code === 'ENOENT'
        ? `cannot write ${dest}: the directory ${dir} does not exist. Nothing was exported.`
        : `cannot write ${dest}: ${fsWords(err)}. Nothing was exported.`,
    );
  });
  if (!st.isDirectory()) throw new Error(`cannot write ${dest}: ${dir} is not a directory. Nothing was exported.`);
  await access(dir, constants.W_OK).catch(() => {
    throw new Error(`cannot write ${dest}: the directory ${dir} is not writable for you. Nothing was exported.`);
  });
  const existing = await stat(dest).catch(() => null);
  if (existing?.isDirectory()) throw new Error(`${dest} is a directory: give a file name. Nothing was exported.`);
  return existing !== null;
}

const FS_WORDS: Record<string, string> = {
  ENOENT: 'the directory does not exist',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
};
const fsWords = (err: NodeJS.ErrnoException) => (err.code && FS_WORDS[err.code]) || err.message;

/** File-system failures in words; the appliance's and the connection's errors stay as they are. */
function writeError(err: unknown, dest: string): unknown {
  if (err instanceof ApiError || err instanceof TransportError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e?.code && e.syscall) return new Error(`could not write ${dest}: ${fsWords(e)}. No file was written.`);
  return err;
}

/** CSV records after the header: newlines outside quoted cells (a cell may hold one). */
async function csvRecords(path: string): Promise<number> {
  let inQuotes = false;
  let records = 0;
  let last = -1;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (const b of chunk) {
      if (b === 0x22) inQuotes = !inQuotes;
      else if (b === 0x0a && !inQuotes) records++;
    }
    if (chunk.length) last = chunk[chunk.length - 1];
  }
  if (last !== -1 && last !== 0x0a) records++;
  return Math.max(0, records - 1);
}
