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
  // The first line keeps the indent, wrapped on its own: a first word too long for the line (a path
  // under its label) is broken there, where wrapText alone would drop the indent with it.
  const lead = Math.min(own, Math.floor(width / 2));
  const body = s.slice(own);
  // wrapText's first line is a prefix of the text (only its trailing spaces go)
  const [head] = wrapText(body, width - lead);
  const rest = body.slice(head.length).trimStart();
  return [' '.repeat(lead) + head, ...(rest ? wrapText(rest, width - indent.length).map((l) => indent + l) : [])];
}
