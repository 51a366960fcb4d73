/**
 * The screen API: a screen declares what it shows and which actions it offers; the shell does
 * navigation, polling, dialogs, errors, the audit lookup and role-aware disabling. See
 * screens/README.md for a walkthrough.
 */
import type { ReactNode } from 'react';
import type { CallInput, FileRouteName, JsonRouteName, RouteData } from '../../client/api-client.js';
import type { AuditEntry } from '../../contract/index.js';
import type { DownloadProgress, DownloadResult } from '../../client/download.js';
import type { PinnedAuditKey } from '../../audit-chain/keys-file.js';
import type { SortState } from './screen-state.js';
import type { Tone } from './theme.js';
import type { FormField, FormValues } from './dialog-specs.js';
import type { MessageChoice } from './dialog-specs.js';
import type { ScreenUiState } from './screen-state.js';
import type { SessionState } from './session-state.js';
import type { ResourceEntry, ResourceRequest } from './resource.js';
import type { Intent } from '../../config/key-bindings.js';

export type { ResourceRequest, ResourceEntry, ScreenUiState, Tone, FormField, PinnedAuditKey };

/** One column of a standard list. Cell text is sanitized and fitted to the width by the table. */
export interface Column<Row> {
  header: string;
  value: (row: Row) => unknown;
  /** fixed width in terminal columns */
  width?: number;
  /** never shrink below this (default: min(natural width, 6)) */
  minWidth?: number;
  /** never grow beyond this when sizing to content (default 40) */
  maxWidth?: number;
  /** takes the width left over */
  grow?: boolean;
  /** a short line narrows it (to minWidth) before the others, of several the rightmost first: a column less read than its neighbours */
  givesWay?: boolean;
  /**
   * an id: narrowed, it shows its first characters without a cut mark, as git shortens hashes, at
   * least this many and never fewer than tell the listed rows apart (its minWidth); Enter has it whole
   */
  uniquePrefix?: number;
  /**
   * a chart, newest last: narrowed, it shows its last characters without a cut mark, so that the
   * newest marks stay (the usage screen's requests over time); Enter has the figures
   */
  keepsEnd?: boolean;
  /** narrowed only once every other column is at its minWidth: the column the list is read for */
  holdsWidth?: boolean;
  /**
   * the screen's job needs it (keys: the rejections; routing: who changed it): when the line is
   * short the columns not kept give way first, left out from the right until it fits whole, and
   * it is narrowed last. A function decides it from the screen's state (the journal keeps Tool
   * while it lists failures).
   */
  keep?: boolean | ((state: ScreenUiState) => boolean);
  /**
   * a shorter form of a fixed-width cell (the audit trail's time without the year and seconds), and
   * its header: taken on a line too short to show the columns up to the last kept one with the full
   * form (src/dashboard/kit/table-layout.ts layoutColumns); the line under the table says the cell whole
   */
  short?: { value: (row: Row) => unknown; width: number; header?: string };
  align?: 'left' | 'right';
  /** colour of the cell; the cell text must say the same thing in words */
  tone?: (row: Row) => Tone | undefined;
  /**
   * what `s` sorts the column by, when its text does not sort ("12 min", "40k", "∞"): a number
   * (a time as ms, a size, Infinity for unlimited), a string, or null for unknown (always last).
   * Default: the value when it is a number or an ISO time, else the cell text.
   */
  sort?: (row: Row) => number | string | null;
}

/** A standard list screen: rows from a resource, columns, cursor, filter, detail view. */
export interface ListSpec<Row> {
  /** id of the resource holding the rows (default: the first resource) */
  resource?: string;
  /**
   * rows from the resource's data (default: data.data, or data when it is an array); `related`
   * has the data of the screen's other resources by id, to join into the rows (keys: last hour's rejections);
   * `extra`, the screen's state, for a filter an action sets without fetching anew (keys: `U` unused keys)
   */
  rows?: (data: unknown, related: Record<string, unknown>, extra: Record<string, unknown>) => Row[];
  /**
   * rows from all of the screen's resources instead (an overview: a line per thing, and per
   * resource still loading or failed); the list is drawn at once, without waiting for the primary
   */
  rowsFrom?: (resources: Record<string, ResourceEntry>, context?: ScreenContext) => Row[];
  /** rows are the dashboard's own action log, newest first (src/dashboard/state/action-log.ts), not an answer */
  fromActionLog?: boolean;
  columns: Column<Row>[];
  rowKey: (row: Row) => string;
  /** what an empty list means, in plain words; from the screen's state when a filter or search it sets can empty it (keys: U, f) */
  empty?: string | ((state: ScreenUiState) => string);
  /**
   * one line above the table, from all rows (the filter is noted after it), e.g. "3 connectors · 1 degraded";
   * `view` (given by the shell) has the primary resource's whole answer and the screen's state (e.g. for "page 3 · more")
   */
  summary?: (rows: Row[], view?: ListView) => string;
  /**
   * a second line under the summary, for a state the screen must never cut off (the audit chain's):
   * its words say it all (tone only adds colour); null draws an empty line, so the table stays put
   */
  status?: (rows: Row[], view?: ListView) => { text: string; tone?: Tone } | null;
  /**
   * the cursor row said in full, under the table (at most two lines): what a narrow terminal cuts
   * from the row's cells. Default: every cell, each after its header (src/dashboard/kit/table-layout.ts
   * rowSaidWhole); a screen's own words (the overview's "what: reason") are followed by the cells the
   * table cut that they do not already say
   */
  cursorLine?: (row: Row) => string;
  /**
   * a list the appliance pages (audit, journal) comes in the appliance's order: a page is not
   * sorted again here, the header marks `column`, and `s` says `note` instead of sorting
   */
  serverOrder?: SortState & { note: string };
  /**
   * the screen's resources send `/`'s text to the appliance (audit, journal: the query's `q`), so
   * the shell shows the rows as they came instead of filtering them again, and the summary says
   * how many match
   */
  serverFilter?: boolean;
}

/** What the dashboard was started with that a screen's checks read (not its data). */
export interface ScreenContext {
  /** the audit key pinned for this appliance (--audit-key, the config's audit-key): the chain is checked with it */
  auditKey?: PinnedAuditKey;
  /**
   * how the operator presses an intent on this screen now, after the config's rebindings (`]`), null when
   * it is unbound; the dashboard gives it
   */
  keyOf?: (intent: Intent) => string | null;
}

/** What a list's summary may read besides its rows. */
export interface ListView extends ScreenContext {
  /** the primary resource's data as received (envelope included: has_more, next_cursor, …) */
  data: unknown;
  state: ScreenUiState;
  /** every resource of the screen by id (a count beside the page: the audit trail's total); the dashboard gives it */
  resources?: Record<string, ResourceEntry>;
}

export interface ScreenRenderProps {
  state: ScreenUiState;
  /** this screen's resources by id */
  resources: Record<string, ResourceEntry>;
  width: number;
  height: number;
  setExtra(patch: Record<string, unknown>): void;
  /** sets state.scroll, e.g. to clamp it to the content after End (which moves it far down) */
  setScroll(scroll: number): void;
}

/** A progress dialog an action keeps updating; Esc closes it and aborts `signal`. */
interface ProgressHandle {
  update(p: { lines?: string[]; fraction?: number | null; tone?: Tone }): void;
  close(): void;
  readonly signal: AbortSignal;
}

interface PickItem<T> {
  value: T;
  label: string;
  hint?: string;
}

/**
 * Another screen, opened on what explains a row: its filter, its screen state (`extra`: a time
 * range, history filters such as `{agent, status}`) and the row to put the cursor on (its rowKey).
 */
export interface ScreenLink {
  screen: string;
  /** the `/` filter text (default: none) */
  filter?: string;
  /** replaces the screen's `extra` (default: kept as it was) */
  extra?: Record<string, unknown>;
  /** rowKey of the row to select once it arrives */
  select?: string;
}

/** What an action gets: promise-based dialogs the shell renders, and the API. */
export interface ActionContext {
  /** Yes/no; the focus starts on Cancel. */
  confirm(o: { title: string; message: string | string[]; confirmLabel?: string; danger?: boolean }): Promise<boolean>;
  /** The user must type `expected` exactly. */
  typeToConfirm(o: { title: string; message: string | string[]; expected: string }): Promise<boolean>;
  /**
   * Resolves with the values, or null when cancelled. If the appliance refuses what was sent
   * (400/409/413/422) before anything changed, the shell runs the action again and this form
   * opens with what was sent and the reason: write actions so that running them again is safe.
   */
  form<V extends FormValues = FormValues>(o: {
    title: string;
    fields: FormField[];
    submitLabel?: string;
    message?: string | string[];
    /** the field the form opens on (by name; default the first): the one the operator came to change */
    focus?: string;
  }): Promise<V | null>;
  pick<T>(o: { title: string; items: PickItem<T>[]; message?: string }): Promise<T | null>;
  /**
   * `choices`: keys that close it and resolve with the key pressed (what to do next with what it
   * shows); Enter or Esc resolves null
   */
  message(o: { title: string; lines: string[]; tone?: Tone; choices?: MessageChoice[] }): Promise<string | null>;
  /**
   * Shows a secret once, with OSC 52 copy on the user's explicit key. The dialog drops every
   * reference to it when it closes; do not keep it yourself.
   */
  revealOnce(o: { title: string; secret: string; lines: string[] }): Promise<void>;
  /** `escStops`: Esc ends the work (its signal aborts), and the dialog says so; else Esc stops following it */
  progress(o: { title: string; lines?: string[]; escStops?: boolean }): ProgressHandle;
  /**
   * Calls a contract route. Failures throw (ApiError/TransportError); if the action lets them
   * propagate the shell shows them in plain words with code and request id. A 403 on a change
   * turns the session read-only. Successful changes are remembered for the audit lookup.
   */
  call<N extends JsonRouteName>(
    route: N,
    input?: Omit<CallInput, 'signal'> & { signal?: AbortSignal },
  ): Promise<RouteData<N>>;
  /**
   * The audit entry the last successful change through `route` in this run produced (its
   * `details` say e.g. that nothing changed), or null when it cannot be found. The shell shows
   * the same entry in the result.
   */
  audit(route: JsonRouteName): Promise<AuditEntry | null>;
  /**
   * A route's answer as it came off the wire (parsed JSON, neither mended nor sanitized), for an
   * integrity check (the audit chain) or evidence written as served (a pack), never for display.
   */
  served(route: JsonRouteName, input?: Omit<CallInput, 'signal'> & { signal?: AbortSignal }): Promise<unknown>;
  /** Whether a text holds the bearer token in use (the token itself stays in the client): for a scan of what is written. */
  tokenMatcher(): Promise<(text: string) => boolean>;
  /** A file route's answer as it streams, for a check that reads it as it arrives (V): headers and bytes. */
  stream(
    route: FileRouteName,
    query: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ header(name: string): string | undefined; body: AsyncIterable<Buffer> }>;
  download(
    route: FileRouteName,
    query: Record<string, unknown>,
    dest: string,
    onProgress?: (p: DownloadProgress) => void,
    signal?: AbortSignal,
  ): Promise<DownloadResult>;
  /** Polls the screen's resources now. */
  refresh(): void;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  readonly state: ScreenUiState;
  /** `top`: also put the cursor back on the first row (a new page of a list) */
  setExtra(patch: Record<string, unknown>, opts?: { top?: boolean }): void;
  readonly session: SessionState;
  readonly refreshMs: number;
  /** the folder an export's file is written to unless an absolute path is given */
  readonly exportFolder: string;
  /** the appliance as the header shows it (no credentials): what an evidence pack says it came from */
  readonly applianceUrl: string;
  /** the audit key pinned for this appliance, if any: V verifies with it rather than the keys it serves */
  readonly auditKey?: PinnedAuditKey;
  /** writes text to the terminal's clipboard (OSC 52) */
  copy(text: string): void;
  /** opens another screen on a filter / state / row (cross-links: an object's audit history) */
  open(link: ScreenLink): void;
}

/** What a finished action reports; the shell adds the audit entry for mutations. */
interface ActionOutcome {
  title?: string;
  summary: string[];
  /** default 'ok'; e.g. 'bad' when a followed job failed */
  tone?: Tone;
}

/**
 * Its key: an intent the screens share (`intent: 'new'`), whose key is the same on every screen
 * (src/config/key-bindings.ts INTENTS), or, for what only this screen does, one printable key of its
 * own: not one the shell takes, nor an intent's.
 */
type ActionKey = { intent: Intent; key?: never } | { key: string; intent?: never };

interface ActionCommon {
  label: string;
  /** true when the action changes anything on the appliance */
  mutates: boolean;
  /** the contract action it needs, e.g. 'gateway.key.revoke' */
  capability?: string;
  /**
   * How long it stays on a short hint line: higher stays longer. Default 60, after `?` and `q`
   * and before the shell's other keys; of equals, the rightmost goes first. The action a screen
   * is mostly used for says more (V on the audit screen, export and groups on the histories);
   * what every list offers says less (paging: 50 to 54, the history's filter keys 56 to 58).
   */
  hintPriority?: number;
  /**
   * Its word on a hint line too short for every label (an 80- or 60-column terminal): the line
   * says the short words of its lesser keys before it leaves any key out (`u quota` for set quota).
   */
  hintShort?: string;
}

/** An action on the selected row: the shell runs it only with a row, so `run` gets one. */
type RowAction<Row> = ActionKey &
  ActionCommon & {
    needsRow: true;
    /** why it does not apply to this row now (e.g. 'already revoked'), or null; `state` is the screen's, as `ctx.state` */
    unavailable?: (row: Row, state: ScreenUiState) => string | null;
    run(ctx: ActionContext, row: Row): Promise<ActionOutcome | void>;
  };

/** An action that runs with or without a selected row (a filter, a page, a new object). */
type FreeAction<Row> = ActionKey &
  ActionCommon & {
    needsRow?: false;
    /**
     * why it does not apply now (to this row, if any, or in the screen's `state`, as `ctx.state`: a
     * filter to clear that is not set), or null
     */
    unavailable?: (row: Row | undefined, state: ScreenUiState) => string | null;
    run(ctx: ActionContext, row: Row | undefined): Promise<ActionOutcome | void>;
  };

/** `needsRow: true` narrows the row its `unavailable` and `run` get to `Row` (no `row!`). */
export type ScreenAction<Row = unknown> = RowAction<Row> | FreeAction<Row>;

export interface ScreenDef<Row = unknown> {
  /** the `:` name */
  name: string;
  title: string;
  /** what it polls, from its filter and `extra` (range, page): it is not given the cursor or scroll (src/dashboard/shell/screen-resources.ts) */
  resources(state: ScreenUiState): ResourceRequest[];
  /** a standard list … */
  list?: ListSpec<Row>;
  /** … or a custom view (deployment, usage) */
  render?: (props: ScreenRenderProps) => ReactNode;
  /**
   * a custom view that filters what it shows by `state.filter` says true; the shell then offers
   * `/` (a list is always filtered by the shell, a custom view without it never is)
   */
  filter?: boolean;
  /** what Enter shows for a row (default: the row as the server sent it) */
  detail?: (row: Row) => unknown;
  /**
   * Enter on a row opens another screen instead of the detail view (an overview line opens what
   * explains it); null for a row that has none, which then shows its detail
   */
  open?: (row: Row) => ScreenLink | null;
  /**
   * the label of one of its actions that Enter runs on a row instead of showing the row: what Enter
   * shows must be fetched first (the action log's audit entry), which a detail view cannot do
   */
  enter?: string;
  /**
   * a custom view with a cursor (its `state.scroll`): the row under it, which Enter shows (through
   * `detail`) and actions get, as on a list (usage: a key's rejections, then set quota)
   */
  selected?: (resources: Record<string, ResourceEntry>, state: ScreenUiState) => Row | undefined;
  actions?: ScreenAction<Row>[];
  /**
   * An error of one of its resources that the screen tells in its own words, where it belongs (a
   * history's total, "not counted: too common"): no error banner above it.
   */
  saysError?: (resourceId: string, error: unknown) => boolean;
  /**
   * the time ranges its keys choose between (H, D, W), held in `state.extra[extra]`: `get --range`
   * and `watch --range` choose one the same way
   */
  ranges?: { extra: string; values: readonly string[] };
  /** what its rows can be grouped by, held in `state.extra[extra]`: `get --by` chooses one the same way */
  groupings?: { extra: string; values: readonly string[] };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyScreen = ScreenDef<any>;

/** Whether `/` filters this screen: every list, and a custom view that says it reads the filter. */
export const offersFilter = (screen: AnyScreen): boolean => Boolean(screen.list) || screen.filter === true;

/** What the list says when it has no row, in the screen's state. */
export const emptyText = (list: Pick<ListSpec<unknown>, 'empty'>, state: ScreenUiState): string | undefined =>
  typeof list.empty === 'function' ? list.empty(state) : list.empty;

export const defineScreen = <Row>(d: ScreenDef<Row>): ScreenDef<Row> => d;
