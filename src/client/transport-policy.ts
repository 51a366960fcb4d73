import { isIPv4 } from 'node:net';

/**
 * Plain http is only for the appliance on this machine: anything else must be https (the
 * bearer token would cross the network in clear) unless the operator says --insecure-http.
 */

/**
 * 127.0.0.0/8, ::1 (also as ::ffff:127.x), localhost: a WHATWG URL's hostname. Not *.localhost:
 * only the name localhost itself is answered from the hosts file; a resolver may send
 * evil.localhost anywhere.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (h === 'localhost') return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (h === '::1') return true;
  // The URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1.
  const mapped = /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.exec(h);
  return mapped !== null;
}

/** True for http:// to a host that is not loopback (the header marks it INSECURE HTTP). */
export function isInsecureHttp(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return u.protocol === 'http:' && !isLoopbackHost(u.hostname);
}

/** Why `url` may not be used as given, or null. */
export function plainHttpRefusal(url: string, insecureHttpAllowed: boolean): string | null {
  if (insecureHttpAllowed || !isInsecureHttp(url)) return null;
  const host = new URL(url).host;
  return `refusing plain http to ${host}: the token would cross the network unencrypted. Use https://${host} (with --ca-file for the appliance's own CA), or accept the risk with --insecure-http`;
}
