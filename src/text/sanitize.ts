/**
 * Server text is untrusted: nothing it contains may steer the terminal. Every string from the
 * appliance passes through here before Ink sees it.
 */

// ESC-introduced sequences: CSI (ESC [ … final), OSC (ESC ] … BEL | ST | end), DCS/SOS/PM/APC
// (ESC P|X|^|_ … ST | end), and two-byte escapes (ESC + one char). The 8-bit C1 forms
// (0x9B CSI, 0x9D OSC, 0x90/0x98/0x9E/0x9F strings) are handled the same way.
const ESCAPE_SEQUENCE = new RegExp(
  [
    '(?:\\x1b\\[|\\x9b)[\\x30-\\x3f]*[\\x20-\\x2f]*[\\x40-\\x7e]?',
    '(?:\\x1b\\]|\\x9d)[\\s\\S]*?(?:\\x07|\\x1b\\\\|\\x9c|$)',
    '(?:\\x1b[PX^_]|[\\x90\\x98\\x9e\\x9f])[\\s\\S]*?(?:\\x1b\\\\|\\x9c|$)',
    '\\x1b[\\s\\S]?',
  ].join('|'),
  'g',
);
// Line breaks and tabs become a space so words stay apart; a CR can no longer overwrite a line.
const WHITESPACE_CONTROLS = /[\t\n\v\f\r\u0085\u2028\u2029]/g;
// Every other C0, DEL, C1; every format character (bidi overrides and isolates, zero-width
// space/joiners, LRM/RLM, BOM, soft hyphen, tag characters).
const OTHER_CONTROLS = /[\p{Cc}\p{Cf}]/gu;
const LONE_SURROGATE = /\p{Cs}/gu;

const DEFAULT_MAX_LENGTH = 1000;

/** One printable line: no control characters, no escape sequences, at most `max` characters. */
export function sanitize(value: unknown, max = DEFAULT_MAX_LENGTH): string {
  if (value === null || value === undefined) return '';
  let s = typeof value === 'string' ? value : String(value);
  // Escape sequences only ever shrink the text, so a bounded prefix is enough to work on.
  if (s.length > max * 4 + 64) s = s.slice(0, max * 4 + 64);
  s = s
    .replace(ESCAPE_SEQUENCE, '')
    .replace(WHITESPACE_CONTROLS, ' ')
    .replace(OTHER_CONTROLS, '')
    .replace(LONE_SURROGATE, '\uFFFD');
  if (s.length > max) {
    const cut = [...s].slice(0, Math.max(0, max - 1)).join('');
    s = `${cut}…`;
  }
  return s;
}

/** Deeper than this, or longer than this, a server's JSON is junk: it is cut, so no reader
 * recurses without bound or spreads a million items into a call. */
export const MAX_DEPTH = 64;
export const MAX_ITEMS = 10_000;
export const TOO_DEEP = '(nested too deeply)';

/** What sanitizeDeep had to cut, for the caller to report. */
export interface Cuts {
  depth: boolean;
  items: boolean;
}

/** Sanitizes every string (and every object key) in a JSON-like value. */
export function sanitizeDeep<T>(value: T, max = 4096, depth = 0, cuts?: Cuts): T {
  if (typeof value === 'string') return sanitize(value, max) as T;
  if (value && typeof value === 'object' && depth >= MAX_DEPTH) {
    if (cuts) cuts.depth = true;
    return TOO_DEEP as T;
  }
  if (Array.isArray(value)) {
    if (value.length > MAX_ITEMS && cuts) cuts.items = true;
    return value.slice(0, MAX_ITEMS).map((v) => sanitizeDeep(v, max, depth + 1, cuts)) as T;
  }
  if (value && typeof value === 'object') {
    // fromEntries defines own properties: a "__proto__" key stays a key, not a prototype
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [sanitize(k, 200), sanitizeDeep(v, max, depth + 1, cuts)]),
    ) as T;
  }
  return value;
}
