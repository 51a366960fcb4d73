import type { Dispatcher } from 'undici';
import { sanitize } from '../text/sanitize.js';
import { REDIRECTED, TransportError } from './errors.js';
import { headerOf } from './response-body.js';

/** Any 3xx: a 304 revalidating a cached answer is handled before, so a 304 here revalidated nothing. */
export const isRedirect = (status: number) => status >= 300 && status < 400;

/**
 * A redirect is not followed (undici does not, and must not: the bearer token would go to the
 * redirect's target), so it is a failure naming where it points: a sign-in proxy in front of the
 * appliance, or a --url that is not the appliance. The query is left out (sign-in state).
 */
export function redirectError(what: string, res: Dispatcher.ResponseData, requestUrl: string): TransportError {
  if (res.statusCode === 304)
    return new TransportError(
      'protocol',
      `${what} is 304 Not Modified, though nothing was offered to revalidate`,
      REDIRECTED,
    );
  const location = headerOf(res.headers, 'location');
  let where = 'without a Location';
  if (location) {
    let target = location;
    try {
      const u = new URL(location, requestUrl);
      if (u.protocol === 'http:' || u.protocol === 'https:') target = `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
    } catch {
      /* not a URL: named as sent */
    }
    where = `to ${sanitize(target, 200)}`;
  }
  return new TransportError(
    'protocol',
    `${what} is a redirect (${res.statusCode}) ${where}; not followed, the token goes only to the appliance's URL (a sign-in proxy in front of it, or not the appliance's URL?)`,
    REDIRECTED,
  );
}
