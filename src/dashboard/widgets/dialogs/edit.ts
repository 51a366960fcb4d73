import { sanitize } from '../../../text/sanitize.js';

/**
 * The length of a field's text as its limit counts it: in code points (an emoji is one), as
 * the appliance's contract does (zod 4's string max counts code points; test/widgets/text-fields.test.tsx).
 */
export const charCount = (s: string): number => [...s].length;

/**
 * Pasted text as one line: line breaks and tabs become spaces (a trailing line break, as when a
 * whole line was copied, goes), every other control character and escape sequence is removed.
 */
export function pastedLine(text: string): string {
  const oneLine = text.replace(/^[\r\n]+|[\r\n]+$/g, '').replace(/\r\n|[\r\n]/g, ' ');
  return sanitize(oneLine, oneLine.length + 1);
}
