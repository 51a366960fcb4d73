import { TransportError, describeError } from '../../client/errors.js';
import { IdentityProviderUnavailableError } from '../../client/session/errors.js';
import type { ResourceStore } from './resources.js';

/**
 * The connection's state in the header, and the backoff after a connection error: the wait
 * doubles with each failed round up to a cap, and the last data stays on screen meanwhile.
 */

/** A retry is scheduled and its time has not come. */
export function isWaitingToRetry(resources: ResourceStore): boolean {
  const { retryAt } = resources.getState().connection;
  return retryAt !== null && Date.now() < retryAt;
}

export function markConnected(resources: ResourceStore) {
  const conn = resources.getState().connection;
  if (conn.state !== 'ok' || conn.failures || conn.retryAt) {
    resources.setState({ connection: { state: 'ok', retryAt: null, error: null, failures: 0 } });
  }
}

/** The wait after the `failures`th failed round in a row: the poll interval (at least 1 s), doubled each time, up to a cap. */
export const backoffWait = (failures: number, refreshMs: number, maxBackoffMs: number): number =>
  Math.min(maxBackoffMs, Math.max(1000, refreshMs) * 2 ** (failures - 1));

/**
 * Marks the connection down and returns how long to wait before the next try, or null when this
 * failure belongs to a round already counted (several resources failing in one round count as one).
 */
export function markDisconnected(
  resources: ResourceStore,
  err: TransportError | IdentityProviderUnavailableError,
  refreshMs: number,
  maxBackoffMs: number,
): number | null {
  const conn = resources.getState().connection;
  if (conn.state === 'down' && conn.retryAt !== null && Date.now() < conn.retryAt) return null;
  const failures = conn.failures + 1;
  const wait = backoffWait(failures, refreshMs, maxBackoffMs);
  const identityProvider = err instanceof IdentityProviderUnavailableError;
  resources.setState({
    connection: {
      state: 'down',
      retryAt: Date.now() + wait,
      error: describeError(err).headline,
      failures,
      ...(identityProvider ? { identityProvider } : {}),
    },
  });
  return wait;
}

/**
 * The appliance could not be reached or did not answer in time. An answer that came but was
 * unreadable (not JSON, too large) is that resource's error: the connection itself works.
 */
export function isConnectionFailure(err: unknown): err is TransportError | IdentityProviderUnavailableError {
  // The stored sign-in's token ran out and the identity provider cannot renew it right now:
  // nothing can be sent either, and it is as temporary as a lost connection.
  if (err instanceof IdentityProviderUnavailableError) return true;
  return err instanceof TransportError && err.kind !== 'protocol' && err.kind !== 'too-large';
}
