import { ApiClient } from '../client/api-client.js';
import { ApiError, TransportError, describeError } from '../client/errors.js';
import { AuthSessionError, IdentityProviderUnavailableError, SessionExpiredError } from '../client/session/errors.js';
import { explainAuthFailure } from '../client/session/explain.js';
import { sanitize } from '../text/sanitize.js';
import type { Connection } from './connection.js';
import { UsageError } from '../config/usage-error.js';

/** A client for a one-shot command; a malformed --url is a usage error (exit 2). */
export function clientFor(c: Connection): ApiClient {
  try {
    return new ApiClient({ url: c.url, token: c.token, ca: c.ca });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * An appliance or connection failure in plain words, then its code and request id, on stderr:
 * exit 1. With the stored sign-in (`credential` 'session'), a sign-in that expired or was
 * refused says to run appliance-admin login (a one-shot command does not prompt). Anything
 * else is not ours to word and is rethrown.
 */
export function reportClientError(err: unknown, what: string, credential: Connection['credential'] = 'token'): number {
  if (err instanceof AuthSessionError) return report([`appliance-admin: ${what} failed: ${sessionWords(err)}`]);
  if (!(err instanceof ApiError) && !(err instanceof TransportError)) throw err;
  const d = describeError(err);
  const ref = [d.code ? `code ${d.code}` : null, d.requestId ? `request ${d.requestId}` : null]
    .filter(Boolean)
    .join(', ');
  const why =
    credential === 'session' && err instanceof ApiError ? explainAuthFailure(err.status, err, 'session') : undefined;
  const headline = why
    ? `${why.title}. ${why.message}${why.signInAgain ? ' Run: appliance-admin login' : ''}`
    : d.headline;
  return report([
    `appliance-admin: ${what} failed: ${headline}`,
    ...(ref ? [`  ${ref}`] : []),
    ...d.lines.map((l) => `  ${l}`),
  ]);
}

/**
 * A client failure in one line (its headline, then its code): what `get overview` and `watch` say
 * when the appliance could not be read. Not a client failure: rethrown.
 */
export function describeFailure(err: unknown): string {
  if (err instanceof AuthSessionError) return sessionWords(err);
  if (!(err instanceof ApiError) && !(err instanceof TransportError)) throw err;
  const d = describeError(err);
  // a transport error's headline says it already (connection refused)
  return d.code && err instanceof ApiError ? `${d.headline} (${d.code})` : d.headline;
}

/** A failure of one command's run is the appliance's (not reached, refused) rather than a bug of ours. */
export const isClientFailure = (err: unknown): boolean =>
  err instanceof AuthSessionError || err instanceof ApiError || err instanceof TransportError;

function sessionWords(err: AuthSessionError): string {
  if (err instanceof SessionExpiredError) return `${err.message} (${err.reason})`;
  if (err instanceof IdentityProviderUnavailableError)
    return `${err.message} (a temporary problem; try again in a moment)`;
  return err.message;
}

function report(lines: string[]): number {
  process.stderr.write(`${lines.map((l) => sanitize(l, 600)).join('\n')}\n`);
  return 1;
}
