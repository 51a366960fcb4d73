import type { ApiClient } from '../../client/api-client.js';
import { ApiError, TransportError } from '../../client/errors.js';
import type { IdentityProviderUnavailableError } from '../../client/session/errors.js';
import type { ResourceRequest } from '../kit/resource.js';
import { isConnectionFailure } from './backoff.js';
import { confirmEntry, patchEntry, queryAt, resourceKey, type ResourceStore } from './resources.js';

/** What a fetch tells the poller: the credential failed, the appliance answered, or could not be reached. */
export interface FetchOutcomes {
  /** true when the credential's owner took the failure over */
  credentialFailed(err: unknown): boolean;
  connected(): void;
  disconnected(err: TransportError | IdentityProviderUnavailableError): void;
}

/**
 * Fetches one resource into the store: at most one request in flight per resource; an answer
 * replaces the entry (a 304 confirms it), a failure keeps the last data, marked stale. It also
 * remembers what was read while the client deferred its checks, which is owed a checked read.
 */
export class ResourceFetcher {
  readonly #inFlight = new Set<string>();
  /**
   * What was read while the client deferred its checks: read again at once by the first frame, then
   * at every tick (due whatever its `everyMs`) until a checked read of it succeeds.
   */
  readonly unchecked = new Map<string, ResourceRequest>();
  /** the client checks every answer (the first frame is drawn) */
  answersChecked = false;
  readonly #client: ApiClient;
  readonly #resources: ResourceStore;
  readonly #outcomes: FetchOutcomes;

  constructor(client: ApiClient, resources: ResourceStore, outcomes: FetchOutcomes) {
    this.#client = client;
    this.#resources = resources;
    this.#outcomes = outcomes;
  }

  inFlight(key: string): boolean {
    return this.#inFlight.has(key);
  }

  /** Owed a checked read: read unchecked before the first frame, and the client checks answers now. */
  owesCheckedRead(key: string): boolean {
    return this.answersChecked && this.unchecked.has(key);
  }

  async fetch(r: ResourceRequest) {
    const key = resourceKey(r);
    if (this.#inFlight.has(key)) return;
    this.#inFlight.add(key);
    const resources = this.#resources;
    const before = resources.getState().entries[key];
    if (!before || before.status === 'idle') patchEntry(resources, key, { status: 'loading' });
    try {
      const res = await this.#client.call(r.route, {
        params: r.params,
        query: queryAt(r),
        ...(r.rolling ? { revalidateAs: key } : {}),
      });
      if (!(res.notModified && confirmEntry(resources, key, res.data, Date.now(), res.requestId))) {
        patchEntry(resources, key, {
          data: res.data,
          error: null,
          fetchedAt: Date.now(),
          status: 'ok',
          stale: false,
          issues: res.issues,
          requestId: res.requestId,
          served: res.served,
        });
      }
      if (res.unchecked) this.unchecked.set(key, r);
      else this.unchecked.delete(key);
      this.#outcomes.connected();
    } catch (err) {
      if (this.#outcomes.credentialFailed(err)) {
        // the last data stays as it was; the sign-in prompt says what happened
        if (!before || before.status === 'idle') patchEntry(resources, key, { status: 'idle' });
        return;
      }
      // what the first frame showed as sent, and its checked read refuses (not this API, unreadable): not kept
      const refused = this.owesCheckedRead(key) && err instanceof TransportError && err.kind === 'protocol';
      if (refused) this.unchecked.delete(key);
      const had = !refused && resources.getState().entries[key]?.data !== undefined;
      patchEntry(resources, key, {
        error: err,
        status: 'error',
        stale: had,
        ...(refused ? { data: undefined, served: undefined } : {}),
      });
      if (isConnectionFailure(err)) this.#outcomes.disconnected(err);
      else if (err instanceof ApiError || err instanceof TransportError) this.#outcomes.connected();
    } finally {
      this.#inFlight.delete(key);
    }
  }
}
