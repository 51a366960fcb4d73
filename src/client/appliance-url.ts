import { API_PREFIX } from '../contract/route-meta.js';
import { sanitize } from '../text/sanitize.js';

/** Splits `--url` into the origin and any path prefix the appliance is mounted under. */
export function parseApplianceUrl(url: string): { origin: string; prefix: string; display: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`not a URL: ${sanitize(url, 200)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`the URL must be http or https, got ${u.protocol}`);
  if (u.username || u.password) throw new Error('put credentials in --token-file, not in the URL');
  const prefix = u.pathname.replace(/\/+$/, '').replace(new RegExp(`${API_PREFIX}$`), '');
  return { origin: u.origin, prefix, display: `${u.origin}${prefix}` };
}
