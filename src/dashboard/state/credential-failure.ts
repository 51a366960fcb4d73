import { ApiError } from '../../client/errors.js';
import type { SessionStore } from './session.js';

/**
 * A request failed: true when the credential's owner took the failure over (`onAuthFailure`: a
 * stored sign-in asks for a new one); a plain 401 is worded here, in the session's error.
 */
export function credentialFailed(
  err: unknown,
  session: SessionStore,
  onAuthFailure: ((err: unknown) => boolean) | undefined,
): boolean {
  if (onAuthFailure?.(err)) return true;
  if (err instanceof ApiError && err.status === 401) {
    // A token from a file or variable cannot be renewed from here: only a new one helps.
    session.setState({
      authError: `the appliance refused the token (401 ${err.code}): unknown or revoked; an IT admin must issue a new token`,
      resolved: false,
    });
  }
  return false;
}
