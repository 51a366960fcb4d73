import type { Key } from 'ink';
import { sanitize } from '../../text/sanitize.js';

/**
 * The length of a field's text as its limit counts it: in code points (an emoji is one), as
 * the appliance's contract does (zod 4's string max counts code points; test/ui/text-fields.test.tsx).
 */
export const charCount = (s: string): number => [...s].length;

/** A field's value after an edit, and whether the field's limit cut what was typed or pasted. */
export interface Edited {
  value: string;
  clipped: boolean;
}

function limited(chars: string[], maxLength: number): Edited {
  return { value: chars.slice(0, maxLength).join(''), clipped: chars.length > maxLength };
}

/**
 * The value after a key press in a one-line field, or null when the key is not an edit.
 * Ink delivers a fast burst of keys as one string, so backspaces inside it are applied in
 * order rather than dropped.
 */
export function applyEdit(value: string, input: string, key: Key, maxLength = 500): Edited | null {
  if (key.backspace || key.delete) return { value: [...value].slice(0, -1).join(''), clipped: false };
  if (
    key.ctrl ||
    key.escape ||
    key.return ||
    key.tab ||
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow ||
    key.pageUp ||
    key.pageDown ||
    key.home ||
    key.end
  )
    return null;
  if (key.meta) return null;
  if (!input) return null;
  let chars = [...value];
  let changed = false;
  for (const ch of input) {
    if (ch === '\x7f' || ch === '\b') {
      chars = chars.slice(0, -1);
      changed = true;
    } else {
      const clean = sanitize(ch, 10);
      if (clean) {
        chars.push(clean);
        changed = true;
      }
    }
  }
  return changed ? limited(chars, maxLength) : null;
}

/** applyEdit's value alone. */
export function editText(value: string, input: string, key: Key, maxLength = 500): string | null {
  return applyEdit(value, input, key, maxLength)?.value ?? null;
}

/**
 * Pasted text as one line: line breaks and tabs become spaces (a trailing line break, as when a
 * whole line was copied, goes), every other control character and escape sequence is removed.
 */
export function pastedLine(text: string): string {
  const oneLine = text.replace(/^[\r\n]+|[\r\n]+$/g, '').replace(/\r\n|[\r\n]/g, ' ');
  return sanitize(oneLine, oneLine.length + 1);
}

/** The value with a paste added at the caret (the end), cut to the field's limit; null when the paste holds no text. */
export function insertPaste(value: string, text: string, maxLength = 500): Edited | null {
  const line = pastedLine(text);
  if (!line) return null;
  return limited([...value, ...line], maxLength);
}
