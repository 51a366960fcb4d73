import { createStore } from 'zustand/vanilla';
import type { ResourceEntry, ResourceRequest } from '../kit/resource.js';

type ConnectionState = 'connecting' | 'ok' | 'down';

export interface ConnectionInfo {
  state: ConnectionState;
  /** when the poller tries again after a connection error */
  retryAt: number | null;
  error: string | null;
  failures: number;
  /** the identity provider, not the appliance, could not be reached (to renew the stored sign-in) */
  identityProvider?: boolean;
}

export interface ResourcesState {
  entries: Record<string, ResourceEntry>;
  connection: ConnectionInfo;
}

export type ResourceStore = ReturnType<typeof createResourceStore>;

const stable = (v: unknown): string =>
  v && typeof v === 'object'
    ? `{${Object.keys(v as object)
        .sort()
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .map((k) => `${k}:${stable((v as Record<string, unknown>)[k])}`)
        .join(',')}}`
    : JSON.stringify(v ?? null);

export const resourceKey = (r: Pick<ResourceRequest, 'route' | 'params' | 'query' | 'rolling'>): string =>
  `${r.route}${stable(r.params ?? {})}${stable(r.query ?? {})}${r.rolling ? `@${r.rolling.as}` : ''}`;

/** The query to send now: the fixed part plus a rolling window's values. */
export const queryAt = (
  r: Pick<ResourceRequest, 'query' | 'rolling'>,
  nowMs = Date.now(),
): Record<string, unknown> | undefined => (r.rolling ? { ...(r.query ?? {}), ...r.rolling.query(nowMs) } : r.query);

export const emptyEntry = (key: string): ResourceEntry => ({
  key,
  data: undefined,
  error: null,
  fetchedAt: null,
  status: 'idle',
  stale: false,
  issues: [],
  requestId: undefined,
});

export function createResourceStore() {
  return createStore<ResourcesState>(() => ({
    entries: {},
    connection: { state: 'connecting', retryAt: null, error: null, failures: 0 },
  }));
}

export function patchEntry(store: ResourceStore, key: string, patch: Partial<ResourceEntry>) {
  store.setState((s) => ({ entries: { ...s.entries, [key]: { ...(s.entries[key] ?? emptyEntry(key)), ...patch } } }));
}

/**
 * A poll answered 304 for an entry shown as it is: only its age changes, and the shell's
 * once-a-second clock redraws the age anyway, so subscribers are not woken for it. Redrawing
 * the whole dashboard for each 304 as well took its idle CPU from 1.13% to 1.44% of a core
 * (docs/performance.md). Returns false (nothing done) when the entry is not plainly ok.
 */
export function confirmEntry(
  store: ResourceStore,
  key: string,
  data: unknown,
  at: number,
  requestId: string | undefined,
): boolean {
  const entries = store.getState().entries;
  const e = entries[key];
  if (!e || e.status !== 'ok' || e.stale || e.error !== null || e.data !== data) return false;
  entries[key] = { ...e, fetchedAt: at, requestId };
  return true;
}

/**
 * When the entry's data was last confirmed current. A 304 moves fetchedAt in the store without
 * waking subscribers (confirmEntry), so a component's own copy of the entry keeps the first
 * answer's time: the header read that copy and called an idle screen late. The clock's redraw reads it here.
 */
export const confirmedAt = (store: ResourceStore, entry: ResourceEntry): number | null =>
  store.getState().entries[entry.key]?.fetchedAt ?? entry.fetchedAt;
