export const REDACTED = '[redacted]';
const SECRET_KEY = /secret|password|passwd|token|credential|private|api[_-]?key/i;

/** A URL without user info and with secret-looking query values hidden; other strings unchanged. */
function redactUrl(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  let changed = false;
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
    changed = true;
  }
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_KEY.test(key)) {
      url.searchParams.set(key, REDACTED);
      changed = true;
    }
  }
  return changed ? url.toString() : value;
}

/** Deep copy with every value under a secret-looking key replaced (flags and nulls kept), and credentials in URLs removed. */
export function redact(value: unknown): unknown {
  if (typeof value === 'string') return redactUrl(value);
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
