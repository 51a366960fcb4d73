import type { Key } from 'ink';
import { sanitize } from '../sanitize.js';

/**
 * The value after a key press in a one-line field, or null when the key is not an edit.
 * Ink delivers a fast burst of keys (or a paste) as one string, so backspaces inside it are
 * applied in order rather than dropped.
 */
export function editText(value: string, input: string, key: Key, maxLength = 500): string | null {
  if (key.backspace || key.delete) return [...value].slice(0, -1).join('');
  if (key.ctrl || key.escape || key.return || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.pageUp || key.pageDown || key.home || key.end) return null;
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
  return changed ? chars.slice(0, maxLength).join('') : null;
}
