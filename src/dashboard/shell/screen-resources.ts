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
 * The same filter and extra give the same object, so callers can compare by identity.
 */
export function screenResources(screen: AnyScreen, state: ScreenUiState): ScreenResources {
  const last = derived.get(screen);
  if (last && last.filter === state.filter && last.extra === state.extra) return last.value;
  const requests = screen.resources({ ...EMPTY_SCREEN_STATE, filter: state.filter, extra: state.extra });
  const value = { requests, keys: requests.map(resourceKey) };
  derived.set(screen, { filter: state.filter, extra: state.extra, value });
  return value;
}
