import { wrapText } from '../../kit/text.js';

/**
 * Wraps a line of a dialog to `width`. An indented line (a detail, "    to: {…}") continues
 * indented past its own indent, so it still reads as one value under its key; prose does not.
 */
export function hangingWrap(s: string, width: number): string[] {
  const own = /^ */.exec(s)?.[0].length ?? 0;
  const [first, ...more] = wrapText(s, width);
  if (!more.length || own === 0) return [first, ...more];
  const indent = ' '.repeat(Math.min(own + 2, Math.floor(width / 2)));
  // wrapText's first line is a prefix of the text (only its trailing spaces go)
  const rest = s.slice(first.length).trimStart();
  return [first, ...wrapText(rest, width - indent.length).map((l) => indent + l)];
}
