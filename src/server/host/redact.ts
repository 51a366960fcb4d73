const REDACTED = '[redacted]';
const SECRET_KEY = /secret|password|passwd|token|credential|private|api[_-]?key/i;

/** In a URL, where '[redacted]' would be percent-encoded: a plain word keeps the URL readable. */
const URL_REDACTED = 'REDACTED';

/**
 * A URL anywhere in a text: scheme, authority, path, query, fragment. Read by hand, not by
 * `new URL`, so that one the parser refuses (a bad port, a stray character) is redacted too.
 */
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]*)([^\s?#]*)(\?[^\s#]*)?(#\S*)?/gi;

/** `?key=…&sig=…` as `?key=REDACTED&sig=REDACTED`: names kept, every value hidden (a bare part is a value). */
const redactParams = (mark: string, params: string | undefined): string =>
  params === undefined
    ? ''
    : mark +
      params
        .slice(1)
        .split('&')
        .map((part) => {
          const eq = part.indexOf('=');
          return eq < 0 ? part && URL_REDACTED : `${part.slice(0, eq)}=${URL_REDACTED}`;
        })
        .join('&');

/**
 * Every URL in a text without its user info and with every query and fragment value hidden: a
 * signed URL's `sig`, an OAuth `code` or an `api_key` are secrets whatever their names.
 */
const redactUrls = (text: string): string =>
  text.replace(
    URL_IN_TEXT,
    (_url, scheme: string, authority: string, path: string, query?: string, fragment?: string) =>
      scheme +
      authority.slice(authority.lastIndexOf('@') + 1) +
      path +
      redactParams('?', query) +
      redactParams('#', fragment),
  );

/** Deep copy with every value under a secret-looking key replaced (flags and nulls kept), and every URL redacted. */
export function redact(value: unknown): unknown {
  if (typeof value === 'string') return redactUrls(value);
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      // A flag such as allow_private_addresses reveals nothing; any other value under such a key might.
      const revealsNothing = typeof v === 'boolean' || v === null;
      out[k] = SECRET_KEY.test(k) && !revealsNothing ? REDACTED : redact(v);
    }
    return out;
  }
  return value;
}
