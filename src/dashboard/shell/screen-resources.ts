import { resourceKey } from '../state/resources.js';
import type { AnyScreen } from '../kit/screen-api.js';
import type { ScreenUiState } from '../kit/screen-state.js';
import { EMPTY_SCREEN_STATE } from '../kit/screen-state.js';
import type { ResourceRequest } from '../kit/resource.js';

export interface ScreenResources {
  requests: ResourceRequest[];
  /** resourceKey of each request, in order */
  keys: string[];
}

const derived = new WeakMap<AnyScreen, { filter: string; extra: Record<string, unknown>; value: ScreenResources }>();

/**
 * What a screen polls for its state. It depends on the filter and `extra` (screens/README.md),
 * never on the cursor: derived once for each filter and extra instead of on every key (the shell
 * and the poller both ask after each key), and the screen is not given a cursor or scroll to read.
 * The same filter and extra give the same object, so callers can compare by identity; so do a
 * filter or extra that change nothing the screen asks for (a `/` filter that the screen applies to
 * its rows itself): a new object there would make the rows joined from its answers again on every
 * key typed into the filter, and with them the filter's index of the rows.
 */
export function screenResources(screen: AnyScreen, state: ScreenUiState): ScreenResources {
  const last = derived.get(screen);
  if (last && last.filter === state.filter && last.extra === state.extra) return last.value;
  const requests = screen.resources({ ...EMPTY_SCREEN_STATE, filter: state.filter, extra: state.extra });
  const keys = requests.map(resourceKey);
  const value = last && sameRequests(last.value, requests, keys) ? last.value : { requests, keys };
  derived.set(screen, { filter: state.filter, extra: state.extra, value });
  return value;
}

/** The same resources, asked for the same way (the rolling window's function aside: its name says it). */
function sameRequests(last: ScreenResources, requests: ResourceRequest[], keys: string[]): boolean {
  return (
    last.keys.length === keys.length &&
    keys.every((k, i) => k === last.keys[i]) &&
    requests.every((r, i) => r.id === last.requests[i].id && r.everyMs === last.requests[i].everyMs)
  );
}
