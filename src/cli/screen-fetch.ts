/** A screen's resources fetched once, as the dashboard polls them: what `get` prints, as JSON or a table. */
import type { ApiClient } from '../client/api-client.js';
import { ApiError, type SchemaIssue } from '../client/errors.js';
import { emptyEntry, queryAt } from '../dashboard/state/resources.js';
import type { AnyScreen, ResourceRequest } from '../dashboard/kit/screen-api.js';
import { EMPTY_SCREEN_STATE, type ScreenUiState } from '../dashboard/kit/screen-state.js';
import { UsageError } from '../config/usage-error.js';
import { sanitize } from '../text/sanitize.js';
import type { ResourceEntry } from '../dashboard/kit/resource.js';

export interface Fetched {
  request: ResourceRequest;
  data: unknown;
  issues: SchemaIssue[];
  error?: unknown;
  /** a route checked for integrity (the audit chain): its answer as served, for the checks */
  served?: unknown;
}

/**
 * Each of the screen's resources, as the dashboard polls them when it opens the screen. A screen
 * whose rows come from all its resources (the overview) says which could not be read in its rows,
 * as the dashboard does: a refusal of one of them is kept as that resource's error.
 */
export async function fetchScreen(
  client: ApiClient,
  screen: AnyScreen,
  /** an answer read before that is still fresh enough for this read (`watch`: a resource's `everyMs`) */
  reuse?: (request: ResourceRequest) => Fetched | undefined,
  state: ScreenUiState = EMPTY_SCREEN_STATE,
): Promise<Fetched[]> {
  const out: Fetched[] = [];
  for (const request of screen.resources(state)) {
    const kept = reuse?.(request);
    if (kept) {
      out.push(kept);
      continue;
    }
    try {
      const r = await client.call(request.route, { params: request.params, query: queryAt(request) });
      out.push({ request, data: r.data, issues: r.issues, ...(r.served !== undefined ? { served: r.served } : {}) });
    } catch (err) {
      // no answer at all, or a refused token, is the command's failure
      if (!screen.list?.rowsFrom || !(err instanceof ApiError) || err.status === 401) throw err;
      out.push({ request, data: undefined, issues: [], error: err });
    }
  }
  return out;
}

/** The resources as the dashboard's store holds them, for a screen's `rowsFrom`. */
export function fetchedEntries(fetched: Fetched[]): Record<string, ResourceEntry> {
  return Object.fromEntries(
    fetched.map((f) => [
      f.request.id,
      {
        ...emptyEntry(f.request.id),
        data: f.data,
        error: f.error ?? null,
        status: f.error ? 'error' : 'ok',
        issues: f.issues,
        ...(f.served !== undefined ? { served: f.served } : {}),
      },
    ]),
  );
}

/** The screen as its H, D or W key leaves it (`--range day`), or as it opens when no range is given. */
export function stateWithRange(screen: AnyScreen, range: string | undefined): ScreenUiState {
  if (range === undefined) return EMPTY_SCREEN_STATE;
  const ranges = screen.ranges;
  if (!ranges) throw new UsageError(`the ${screen.name} screen has no time range to choose (--range)`);
  if (!ranges.values.includes(range))
    throw new UsageError(`--range must be one of ${ranges.values.join(', ')}, got ${sanitize(range, 40)}`);
  return { ...EMPTY_SCREEN_STATE, extra: { [ranges.extra]: range } };
}

/** The state with the grouping `--by` chooses (the spend screen's b key), or as it was without --by. */
export function stateWithGrouping(screen: AnyScreen, state: ScreenUiState, by: string | undefined): ScreenUiState {
  if (by === undefined) return state;
  const groupings = screen.groupings;
  if (!groupings) throw new UsageError(`the ${screen.name} screen has no grouping to choose (--by)`);
  if (!groupings.values.includes(by))
    throw new UsageError(`--by must be one of ${groupings.values.join(', ')}, got ${sanitize(by, 40)}`);
  return { ...state, extra: { ...state.extra, [groupings.extra]: by } };
}
