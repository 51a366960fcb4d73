import type { ApiClient } from '../../client/api-client.js';
import { ApiError, TransportError, describeError } from '../../client/errors.js';
import { confirmEntry, patchEntry, queryAt, resourceKey, type ResourceStore } from './resources.js';
import { resolveSession, type SessionStore } from './session.js';
import { IdentityProviderUnavailableError } from '../../client/session/errors.js';
import type { ResourceRequest } from '../kit/resource.js';

export interface PollerOptions {
  client: ApiClient;
  resources: ResourceStore;
  session: SessionStore;
  /** the bearer token (or what gives it), only to read JWT claims when the appliance has no GET /session */
  token: string | (() => Promise<string>);
  refreshMs: number;
  /** longest wait between retries after connection errors */
  maxBackoffMs?: number;
  /**
   * A request failed because of the credential (a 401, or the stored sign-in cannot give a
   * token). Returns true when it takes over (asks for a new sign-in and pauses the poller);
   * otherwise a 401 shows as the token being refused.
   */
  onAuthFailure?: (err: unknown) => boolean;
}

/**
 * Polls only what the visible screen wants, every interval; at most one request in flight per
 * resource; after a connection error it backs off (the header shows the countdown) and keeps
 * the last data on screen.
 */
export class Poller {
  #wanted: ResourceRequest[] = [];
  readonly #inFlight = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #running = false;
  #sessionInFlight = false;
  #paused = false;
  /** the operator's pause (the pause key), apart from the sign-in's: renewing a sign-in does not end it */
  #held = false;
  #firstRoundStarted = false;
  #primaryFirst = false;
  #firstRoundDone: () => void = () => undefined;
  readonly #firstRound = new Promise<void>((resolve) => {
    this.#firstRoundDone = resolve;
  });
  #frameDrawn: () => void = () => undefined;
  readonly #firstFrame = new Promise<void>((resolve) => {
    this.#frameDrawn = resolve;
  });
  #firstAnswerDone: () => void = () => undefined;
  readonly #firstAnswer = new Promise<void>((resolve) => {
    this.#firstAnswerDone = resolve;
  });
  readonly #o: Required<Omit<PollerOptions, 'onAuthFailure'>> & Pick<PollerOptions, 'onAuthFailure'>;
  /**
   * What was read while the client deferred its checks: read again at once by firstFrameDrawn(), then
   * at every tick (due whatever its `everyMs`) until a checked read of it succeeds.
   */
  readonly #unchecked = new Map<string, ResourceRequest>();
  #sessionUnchecked = false;
  #answersChecked = false;

  constructor(opts: PollerOptions) {
    this.#o = { maxBackoffMs: 30_000, ...opts };
  }

  get refreshMs() {
    return this.#o.refreshMs;
  }

  /**
   * `primaryFirst`: the first round asks for the session and the screen's first resource, and for
   * the others only once those have answered and the frame showing them is drawn (firstFrameDrawn),
   * so that their answers do not hold that frame up (a screen that draws what has arrived: the overview).
   */
  start(primaryFirst = false) {
    if (this.#running) return;
    this.#running = true;
    this.#primaryFirst = primaryFirst;
    void this.#tick();
  }

  stop() {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Sends nothing until resume() (while a new sign-in is asked for: no stream of refusals). */
  pause() {
    this.#paused = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Polls again at once, the same resources as before the pause. */
  resume() {
    this.#paused = false;
    this.refreshNow();
  }

  get paused() {
    return this.#paused;
  }

  /** The operator's pause: nothing is polled until release(); `r` still refreshes once. */
  hold() {
    this.#held = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Ends the operator's pause and polls at once. */
  release() {
    this.#held = false;
    this.refreshNow();
  }

  get held() {
    return this.#held;
  }

  /** A new interval (`:refresh 5s`): the next poll is that far from now. */
  setIntervalMs(ms: number) {
    this.#o.refreshMs = ms;
    if (this.#running && !this.#paused && !this.#held && !this.#isWaitingToRetry()) this.#schedule(ms);
  }

  /**
   * The visible screen changed what it shows: fetch what is new right away, and what the last
   * screen asked for only now and then (`everyMs`) if this one wants it fresher than it is: the
   * keys screen opened from the overview would otherwise show the overview's answer, seconds old
   * and marked late, until the next refresh.
   */
  setWanted(reqs: ResourceRequest[]) {
    const before = new Map(this.#wanted.map((r) => [resourceKey(r), r]));
    this.#wanted = reqs;
    if (!this.#running || this.#paused || this.#isWaitingToRetry()) return;
    for (const r of reqs) {
      const was = before.get(resourceKey(r));
      if (!was || (was.everyMs !== r.everyMs && this.#isDue(r))) void this.#fetch(r);
    }
  }

  /**
   * The first frame is on screen. A primary-first round asks for its other resources now, not
   * before: their answers would hold that frame up. And the frame was drawn from answers read as
   * sent (ApiClient.deferChecks): from now on the client checks every answer, and what was read
   * unchecked is read again at once, checked, so that the contract's mends and issues are on
   * screen within a round trip of the first frame.
   */
  firstFrameDrawn() {
    this.#frameDrawn();
    this.#answersChecked = true;
    this.#o.client.deferChecks(false);
    // paused for a sign-in, or waiting out a lost connection: the next tick reads them
    if (!this.#running || this.#paused || this.#isWaitingToRetry()) return;
    for (const [key, r] of this.#unchecked) if (!this.#inFlight.has(key)) void this.#fetch(r);
    if (this.#sessionUnchecked) void this.#resolveSession();
  }

  /** `r`: poll now, skipping any backoff wait. */
  refreshNow() {
    const conn = this.#o.resources.getState().connection;
    if (conn.retryAt) this.#o.resources.setState({ connection: { ...conn, retryAt: null } });
    if (this.#running) void this.#tick(true);
  }

  #isWaitingToRetry(): boolean {
    const { retryAt } = this.#o.resources.getState().connection;
    return retryAt !== null && Date.now() < retryAt;
  }

  #schedule(ms: number) {
    if (!this.#running) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), Math.max(10, ms));
    this.#timer.unref?.();
  }

  /** `once`: asked for (`r`), which polls even while the operator holds polling. */
  async #tick(once = false) {
    if (!this.#running || this.#paused || (this.#held && !once)) return;
    const { retryAt } = this.#o.resources.getState().connection;
    if (retryAt !== null && Date.now() < retryAt) {
      this.#schedule(retryAt - Date.now());
      return;
    }
    if (!this.#held) this.#schedule(this.#o.refreshMs);
    const session = this.#o.session.getState();
    const sessionDue = !session.resolved || (this.#sessionUnchecked && this.#answersChecked);
    const resolving = sessionDue && !session.authError ? this.#resolveSession() : undefined;
    const primaryFirst = this.#primaryFirst && !this.#firstRoundStarted;
    const [primary] = this.#wanted;
    const due = once ? this.#wanted : this.#wanted.filter(this.#isDue);
    const each = (primaryFirst ? this.#wanted.slice(0, 1) : due).map((r) => this.#fetch(r));
    if (primaryFirst) each.push(this.#fetchOthers(Promise.all([resolving, each[0]]), primary));
    const fetches = Promise.all(each);
    if (!this.#firstRoundStarted) {
      this.#firstRoundStarted = true;
      void Promise.all([resolving, fetches]).then(this.#firstRoundDone);
      void Promise.all([resolving, each[0]]).then(this.#firstAnswerDone);
    }
    await fetches;
  }

  /** A resource polled at most `everyMs` is due once its last answer is that old (half a tick early). */
  #isDue = (r: ResourceRequest): boolean => {
    if (!r.everyMs) return true;
    const key = resourceKey(r);
    if (this.#answersChecked && this.#unchecked.has(key)) return true;
    const fetchedAt = this.#o.resources.getState().entries[key]?.fetchedAt;
    return fetchedAt == null || Date.now() - fetchedAt >= r.everyMs - this.#o.refreshMs / 2;
  };

  /** The rest of a primary-first round: after the first answers, and after the frame drawn with them. */
  async #fetchOthers(first: Promise<unknown>, primary: ResourceRequest | undefined) {
    await first;
    await this.#firstFrame;
    const fetched = primary && resourceKey(primary);
    await Promise.all(this.#wanted.filter((r) => resourceKey(r) !== fetched).map((r) => this.#fetch(r)));
  }

  /**
   * Resolves when the first round of polls (the session and the visible screen's resources) has
   * answered or failed, or after `ms`: the CLI draws its first frame then, with data in it.
   * `primaryOnly`: once the session and the screen's first resource have (a screen that draws
   * what has arrived and fills in the rest, the overview, does not wait for the slowest).
   */
  firstRound(ms: number, primaryOnly = false): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      void (primaryOnly ? this.#firstAnswer : this.#firstRound).then(done);
    });
  }

  async #resolveSession() {
    if (this.#sessionInFlight) return;
    this.#sessionInFlight = true;
    try {
      const { unchecked } = await resolveSession(this.#o.client, this.#o.token, this.#o.session);
      this.#sessionUnchecked = unchecked;
      this.#connected();
    } catch (err) {
      if (this.#credentialFailed(err)) return;
      if (isConnectionFailure(err)) this.#disconnected(err);
    } finally {
      this.#sessionInFlight = false;
    }
  }

  async #fetch(r: ResourceRequest) {
    const key = resourceKey(r);
    if (this.#inFlight.has(key)) return;
    this.#inFlight.add(key);
    const { resources } = this.#o;
    const before = resources.getState().entries[key];
    if (!before || before.status === 'idle') patchEntry(resources, key, { status: 'loading' });
    try {
      const res = await this.#o.client.call(r.route, {
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
      if (res.unchecked) this.#unchecked.set(key, r);
      else this.#unchecked.delete(key);
      this.#connected();
    } catch (err) {
      if (this.#credentialFailed(err)) {
        // the last data stays as it was; the sign-in prompt says what happened
        if (!before || before.status === 'idle') patchEntry(resources, key, { status: 'idle' });
        return;
      }
      // what the first frame showed as sent, and its checked read refuses (not this API, unreadable): not kept
      const refused =
        this.#answersChecked && this.#unchecked.has(key) && err instanceof TransportError && err.kind === 'protocol';
      if (refused) this.#unchecked.delete(key);
      const had = !refused && resources.getState().entries[key]?.data !== undefined;
      patchEntry(resources, key, {
        error: err,
        status: 'error',
        stale: had,
        ...(refused ? { data: undefined, served: undefined } : {}),
      });
      if (isConnectionFailure(err)) this.#disconnected(err);
      else if (err instanceof ApiError || err instanceof TransportError) this.#connected();
    } finally {
      this.#inFlight.delete(key);
    }
  }

  /** true when the credential's owner took the failure over; a plain 401 is worded here. */
  #credentialFailed(err: unknown): boolean {
    if (this.#o.onAuthFailure?.(err)) return true;
    if (err instanceof ApiError && err.status === 401) {
      // A token from a file or variable cannot be renewed from here: only a new one helps.
      this.#o.session.setState({
        authError: `the appliance refused the token (401 ${err.code}): unknown or revoked; an IT admin must issue a new token`,
        resolved: false,
      });
    }
    return false;
  }

  #connected() {
    const conn = this.#o.resources.getState().connection;
    if (conn.state !== 'ok' || conn.failures || conn.retryAt) {
      this.#o.resources.setState({ connection: { state: 'ok', retryAt: null, error: null, failures: 0 } });
    }
  }

  #disconnected(err: TransportError | IdentityProviderUnavailableError) {
    const conn = this.#o.resources.getState().connection;
    // Several resources failing in one round count as one failure.
    if (conn.state === 'down' && conn.retryAt !== null && Date.now() < conn.retryAt) return;
    const failures = conn.failures + 1;
    const base = Math.max(1000, this.#o.refreshMs);
    const wait = Math.min(this.#o.maxBackoffMs, base * 2 ** (failures - 1));
    const identityProvider = err instanceof IdentityProviderUnavailableError;
    this.#o.resources.setState({
      connection: {
        state: 'down',
        retryAt: Date.now() + wait,
        error: describeError(err).headline,
        failures,
        ...(identityProvider ? { identityProvider } : {}),
      },
    });
    this.#schedule(wait);
  }
}

/**
 * The appliance could not be reached or did not answer in time. An answer that came but was
 * unreadable (not JSON, too large) is that resource's error: the connection itself works.
 */
function isConnectionFailure(err: unknown): err is TransportError | IdentityProviderUnavailableError {
  // The stored sign-in's token ran out and the identity provider cannot renew it right now:
  // nothing can be sent either, and it is as temporary as a lost connection.
  if (err instanceof IdentityProviderUnavailableError) return true;
  return err instanceof TransportError && err.kind !== 'protocol' && err.kind !== 'too-large';
}
