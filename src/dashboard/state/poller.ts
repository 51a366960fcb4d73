import type { ApiClient } from '../../client/api-client.js';
import type { TransportError } from '../../client/errors.js';
import type { IdentityProviderUnavailableError } from '../../client/session/errors.js';
import { resourceKey, type ResourceStore } from './resources.js';
import { resolveSession, type SessionStore } from './session.js';
import type { ResourceRequest } from '../kit/resource.js';
import { isConnectionFailure, isWaitingToRetry, markConnected, markDisconnected } from './backoff.js';
import { credentialFailed } from './credential-failure.js';
import { FirstRound } from './first-round.js';
import { ResourceFetcher } from './resource-fetch.js';

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
 * Polls only what the visible screen wants, every interval; after a connection error it backs
 * off (backoff.ts: the header shows the countdown) and keeps the last data on screen. This is the
 * schedule: when to poll and what is due. Fetching one resource is resource-fetch.ts's, the
 * first round the first frame waits for first-round.ts's.
 */
export class Poller {
  #wanted: ResourceRequest[] = [];
  #timer: NodeJS.Timeout | null = null;
  #running = false;
  #sessionInFlight = false;
  #paused = false;
  /** the operator's pause (the pause key), apart from the sign-in's: renewing a sign-in does not end it */
  #held = false;
  #primaryFirst = false;
  readonly #first = new FirstRound();
  readonly #o: Required<Omit<PollerOptions, 'onAuthFailure'>> & Pick<PollerOptions, 'onAuthFailure'>;
  readonly #fetcher: ResourceFetcher;
  #sessionUnchecked = false;

  constructor(opts: PollerOptions) {
    this.#o = { maxBackoffMs: 30_000, ...opts };
    this.#fetcher = new ResourceFetcher(opts.client, opts.resources, {
      credentialFailed: (err) => this.#credentialFailed(err),
      connected: () => markConnected(this.#o.resources),
      disconnected: (err) => this.#disconnected(err),
    });
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
    if (this.#running && !this.#paused && !this.#held && !isWaitingToRetry(this.#o.resources)) this.#schedule(ms);
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
    if (!this.#running || this.#paused || isWaitingToRetry(this.#o.resources)) return;
    for (const r of reqs) {
      const was = before.get(resourceKey(r));
      if (!was || (was.everyMs !== r.everyMs && this.#isDue(r))) void this.#fetcher.fetch(r);
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
    this.#first.frameDrawn();
    this.#fetcher.answersChecked = true;
    this.#o.client.deferChecks(false);
    // paused for a sign-in, or waiting out a lost connection: the next tick reads them
    if (!this.#running || this.#paused || isWaitingToRetry(this.#o.resources)) return;
    for (const [key, r] of this.#fetcher.unchecked) if (!this.#fetcher.inFlight(key)) void this.#fetcher.fetch(r);
    if (this.#sessionUnchecked) void this.#resolveSession();
  }

  /** `r`: poll now, skipping any backoff wait. */
  refreshNow() {
    const conn = this.#o.resources.getState().connection;
    if (conn.retryAt) this.#o.resources.setState({ connection: { ...conn, retryAt: null } });
    if (this.#running) void this.#tick(true);
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
    const sessionDue = !session.resolved || (this.#sessionUnchecked && this.#fetcher.answersChecked);
    const resolving = sessionDue && !session.authError ? this.#resolveSession() : undefined;
    const primaryFirst = this.#primaryFirst && !this.#first.started;
    const [primary] = this.#wanted;
    const due = once ? this.#wanted : this.#wanted.filter(this.#isDue);
    const each = (primaryFirst ? this.#wanted.slice(0, 1) : due).map((r) => this.#fetcher.fetch(r));
    if (primaryFirst) each.push(this.#fetchOthers(Promise.all([resolving, each[0]]), primary));
    const fetches = Promise.all(each);
    if (!this.#first.started) this.#first.begin(Promise.all([resolving, fetches]), Promise.all([resolving, each[0]]));
    await fetches;
  }

  /** A resource polled at most `everyMs` is due once its last answer is that old (half a tick early). */
  #isDue = (r: ResourceRequest): boolean => {
    if (!r.everyMs) return true;
    const key = resourceKey(r);
    if (this.#fetcher.owesCheckedRead(key)) return true;
    const fetchedAt = this.#o.resources.getState().entries[key]?.fetchedAt;
    return fetchedAt == null || Date.now() - fetchedAt >= r.everyMs - this.#o.refreshMs / 2;
  };

  /** The rest of a primary-first round: after the first answers, and after the frame drawn with them. */
  async #fetchOthers(first: Promise<unknown>, primary: ResourceRequest | undefined) {
    await first;
    await this.#first.frame;
    const fetched = primary && resourceKey(primary);
    await Promise.all(this.#wanted.filter((r) => resourceKey(r) !== fetched).map((r) => this.#fetcher.fetch(r)));
  }

  /**
   * Resolves when the first round of polls (the session and the visible screen's resources) has
   * answered or failed, or after `ms`: the CLI draws its first frame then, with data in it.
   * `primaryOnly`: once the session and the screen's first resource have (a screen that draws
   * what has arrived and fills in the rest, the overview, does not wait for the slowest).
   */
  firstRound(ms: number, primaryOnly = false): Promise<void> {
    return this.#first.wait(ms, primaryOnly);
  }

  async #resolveSession() {
    if (this.#sessionInFlight) return;
    this.#sessionInFlight = true;
    try {
      const { unchecked } = await resolveSession(this.#o.client, this.#o.token, this.#o.session);
      this.#sessionUnchecked = unchecked;
      markConnected(this.#o.resources);
    } catch (err) {
      if (this.#credentialFailed(err)) return;
      if (isConnectionFailure(err)) this.#disconnected(err);
    } finally {
      this.#sessionInFlight = false;
    }
  }

  #credentialFailed(err: unknown): boolean {
    return credentialFailed(err, this.#o.session, this.#o.onAuthFailure);
  }

  #disconnected(err: TransportError | IdentityProviderUnavailableError) {
    const wait = markDisconnected(this.#o.resources, err, this.#o.refreshMs, this.#o.maxBackoffMs);
    if (wait !== null) this.#schedule(wait);
  }
}
