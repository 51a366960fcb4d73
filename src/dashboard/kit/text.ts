import stringWidth from 'string-width';
import { BoundedMap } from '../../text/bounded-map.js';
import { displayWidth } from '../../text/display-width.js';
import { graphemes } from '../../text/graphemes.js';

/**
 * Display width, remembered: every frame measures the same cells again, and string-width's
 * path for anything but plain ASCII (marks, dashes, …) costs microseconds per character.
 */
const widths = new BoundedMap<string, number>(5000);

export function widthOf(s: string): number {
  let w = widths.get(s);
  if (w === undefined) {
    w = displayWidth(s);
    widths.set(s, w);
  }
  return w;
}

const cuts = new BoundedMap<string, string>(5000);

/** Cuts `s` to at most `width` terminal columns, ending in … when it had to cut. Remembered. */
export function truncate(s: string, width: number): string {
  if (width <= 0) return '';
  if (widthOf(s) <= width) return s;
  if (width === 1) return '…';
  const key = `${width}\u0000${s}`;
  let cut = cuts.get(key);
  if (cut === undefined) {
    cut = cutTo(s, width);
    cuts.set(key, cut);
  }
  return cut;
}

function cutTo(s: string, width: number): string {
  return `${leadingColumns(s, width - 1)}…`;
}

/** The first characters of `s` that fit in `width` terminal columns, without a cut mark. */
export function leadingColumns(s: string, width: number): string {
  let out = '';
  let used = 0;
  for (const { segment } of graphemes(s)) {
    const w = widthOf(segment);
    if (used + w > width) break;
    out += segment;
    used += w;
  }
  return out;
}

/** The last characters of `s` that fit in `width` terminal columns, without a cut mark. */
export function trailingColumns(s: string, width: number): string {
  const parts = Array.from(graphemes(s), (g) => g.segment);
  let used = 0;
  let from = parts.length;
  while (from > 0 && used + widthOf(parts[from - 1]) <= width) used += widthOf(parts[--from]);
  return parts.slice(from).join('');
}

/**
 * Cuts `s` to at most `width` columns keeping its END, starting with … when it had to cut: a
 * field being typed into shows where the caret is.
 */
export function truncateStart(s: string, width: number): string {
  if (width <= 0) return '';
  if (widthOf(s) <= width) return s;
  if (width === 1) return '…';
  const parts = Array.from(graphemes(s), (g) => g.segment);
  let used = 0;
  let from = parts.length;
  while (from > 0 && used + widthOf(parts[from - 1]) <= width - 1) used += widthOf(parts[--from]);
  return `…${parts.slice(from).join('')}`;
}

/** Truncates then pads with spaces to exactly `width` columns. */
export function fit(s: string, width: number, align: 'left' | 'right' = 'left'): string {
  const t = truncate(s, width);
  const pad = ' '.repeat(Math.max(0, width - widthOf(t)));
  return align === 'right' ? pad + t : t + pad;
}

// never after the colon of a URL's scheme: "http:" and "//host" on two lines read as two things
const BREAK_AFTER = /(?<=[ ;{}[\]]|(?<!\d),|,(?!\d)|(?<!\d):(?!\/)|:(?![\d/]))/;

/**
 * Wraps `s` into lines of at most `width` columns, breaking after a space or punctuation where it
 * can (compact JSON has no spaces: it breaks after its commas and colons, but not after a comma or
 * colon between digits, which keeps a count such as 55,560 and a time such as 2026-11-26T21:33:39.181Z
 * whole), inside a token only when the token alone is wider than a line.
 */
export function wrapText(s: string, width: number): string[] {
  if (width <= 0) return [s];
  if (widthOf(s) <= width) return [s];
  const out: string[] = [];
  let line = '';
  for (const word of s.split(BREAK_AFTER)) {
    if (stringWidth(line + word) <= width) {
      line += word;
      continue;
    }
    if (line.trim()) out.push(line.trimEnd());
    line = '';
    // a space that ended the line does not start the next one
    if (!word.trim()) continue;
    let rest = word;
    while (stringWidth(rest) > width) {
      let cut = '';
      for (const { segment } of graphemes(rest)) {
        if (stringWidth(cut + segment) > width) break;
        cut += segment;
      }
      out.push(cut);
      rest = rest.slice(cut.length);
    }
    line = rest;
  }
  if (line.trim()) out.push(line.trimEnd());
  return out.length ? out : [''];
}
