import stringWidth from 'string-width';
import stripAnsi from 'strip-ansi';

/**
 * Characters string-width counts as one column each, one code point per grapheme, that the
 * dashboard and the data it shows use most: printable ASCII, Latin-1 and Latin Extended-A
 * letters, general punctuation (– — ‘ ’ “ ” • … ‰ ′), arrows, the ⏎ of the key hints, box drawing, block elements and
 * geometric shapes (● ▲ ◌ ○ ◆), and the ✓ ✕ ✗ marks. test/text/display-width.test.ts checks every
 * one of them against string-width.
 */
export const NARROW_CLASS =
  '\\u0020-\\u007E\\u00A0-\\u00AC\\u00AE-\\u017F\\u2010-\\u2027\\u2030-\\u205E\\u2190-\\u21FF\\u23CE\\u2500-\\u25FC\\u2713\\u2715\\u2717';
const NARROW_ONLY = new RegExp(`^[${NARROW_CLASS}]*$`);

/**
 * string-width's answer, without its grapheme segmentation and Unicode property tests for text
 * made only of the characters above: on the dashboard's lines that path cost a few microseconds
 * a character, every time Ink measured a line it had not seen (docs/performance.md).
 */
export function displayWidth(text: string): number {
  if (text.length === 0) return 0;
  const plain = text.includes('\u001B') || text.includes('\u009B') ? stripAnsi(text) : text;
  return NARROW_ONLY.test(plain) ? plain.length : stringWidth(plain);
}
