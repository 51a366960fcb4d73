import type { JsonRouteName } from '../../client/api-client.js';
import type { SchemaIssue } from '../../client/errors.js';

/** One thing a screen polls: a contract GET route plus its inputs. */
export interface ResourceRequest {
  /** the screen's local name for it ('keys', 'usage'); the first is the screen's primary */
  id: string;
  route: JsonRouteName;
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  /**
   * A rolling time window ("the last hour"): `query(nowMs)` adds values computed from the clock
   * at each fetch. `as` names the window and is part of the resource's identity; the computed
   * values are not, so the data stays on screen while the window moves.
   */
  rolling?: { as: string; query: (nowMs: number) => Record<string, unknown> };
  /**
   * Poll at most this often, for a figure over a window that moves slowly (the last hour, the
   * last day): a refresh skips it while its last answer is younger. `r` and opening the screen
   * still ask for it at once.
   */
  everyMs?: number;
}

type ResourceStatus = 'idle' | 'loading' | 'ok' | 'error';

export interface ResourceEntry {
  key: string;
  data: unknown;
  error: unknown;
  /** when data last arrived (a 304 counts: the data is confirmed current) */
  fetchedAt: number | null;
  status: ResourceStatus;
  /** data is shown but the last attempt failed */
  stale: boolean;
  issues: SchemaIssue[];
  requestId: string | undefined;
  /**
   * A route checked for integrity (the audit chain: RouteMeta `checked`): its answer as it came off
   * the wire (ApiClient CallResult.served), kept with `data` (also on a 304 and for the first frame's
   * read), for the checks only; `data` is what is shown. Checks never read `data`: it is sanitized
   * and cut for the terminal, and a hash of it would call an intact entry altered.
   */
  served?: unknown;
}
