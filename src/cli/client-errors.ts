import { ApiClient } from '../client/api-client.js';
import { ApiError, TransportError, describeError } from '../client/errors.js';
import { sanitize } from '../ui/sanitize.js';
import type { Connection } from './connection.js';
import { UsageError } from './usage-error.js';

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
 * exit 1. Anything else is not ours to word and is rethrown.
 */
export function reportClientError(err: unknown, what: string): number {
  if (!(err instanceof ApiError) && !(err instanceof TransportError)) throw err;
  const d = describeError(err);
  const ref = [d.code ? `code ${d.code}` : null, d.requestId ? `request ${d.requestId}` : null].filter(Boolean).join(', ');
  const lines = [`appliance-admin: ${what} failed: ${d.headline}`, ...(ref ? [`  ${ref}`] : []), ...d.lines.map((l) => `  ${l}`)];
  process.stderr.write(`${lines.map((l) => sanitize(l, 600)).join('\n')}\n`);
  return 1;
}
