import { ROUTE_META, type RouteName } from '../contract/route-meta.js';
import { sanitize } from '../text/sanitize.js';
import { buildPath } from './route-path.js';

/** A request as the action log sees it (src/dashboard/state/action-log.ts): never its headers or token. */
export interface Exchange {
  at: number;
  route: RouteName;
  method: string;
  /** the path and query as sent */
  path: string;
  /** the whole URL as sent */
  url: string;
  /** the appliance's URL as given (origin plus prefix), for an `appliance-admin --url` */
  appliance: string;
  /** the request's body as given, before JSON */
  body?: unknown;
  /** a file route: its query, and where it was written (none: read as it arrived, as V verifies an export) */
  download?: { dest?: string; query: Record<string, unknown> };
  status: number | null;
  requestId: string | undefined;
  error: string | null;
}

/** What a request was given: the parts of it an Exchange repeats. */
interface Sent {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** Tells its observers (the action log) of each request once it is answered or failed. */
export class ExchangeLog {
  readonly #observers = new Set<(e: Exchange) => void>();
  readonly #appliance: { origin: string; prefix: string; display: string };

  constructor(appliance: { origin: string; prefix: string; display: string }) {
    this.#appliance = appliance;
  }

  /** Returns the unsubscribe. */
  observe(fn: (e: Exchange) => void): () => void {
    this.#observers.add(fn);
    return () => this.#observers.delete(fn);
  }

  /** The request and how it ended, to the observers: an ApiError has the status and request id too. */
  tell(route: RouteName, input: Sent, outcome: unknown, download?: Exchange['download']) {
    if (this.#observers.size === 0) return;
    let path: string;
    try {
      path = buildPath(ROUTE_META[route], this.#appliance.prefix, input.params, input.query);
    } catch {
      return; // a route without its parameters was never sent
    }
    const answer = outcome as { status?: unknown; requestId?: unknown } | null | undefined;
    const e: Exchange = {
      at: Date.now(),
      route,
      method: ROUTE_META[route].method,
      path,
      url: `${this.#appliance.origin}${path}`,
      appliance: this.#appliance.display,
      ...(input.body === undefined ? {} : { body: input.body }),
      ...(download ? { download } : {}),
      status: typeof answer?.status === 'number' ? answer.status : null,
      requestId: typeof answer?.requestId === 'string' ? answer.requestId : undefined,
      error: outcome instanceof Error ? sanitize(outcome.message, 300) : null,
    };
    for (const fn of this.#observers) fn(e);
  }
}
