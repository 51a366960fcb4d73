import type { Key } from 'ink';
import { sanitize } from '../../text/sanitize.js';

/** A one-line field's text and where the caret is in it, in code points (0 = before the first). */
export interface Line {
  text: string;
  caret: number;
}

/** A line after an edit, and whether the field's limit cut what was typed. */
export interface EditedLine extends Line {
  clipped: boolean;
}

export const lineAtEnd = (text: string): Line => ({ text, caret: [...text].length });

const isWordChar = (ch: string) => /[\p{L}\p{N}_]/u.test(ch);

/** The caret after skipping back over non-word characters, then over a word (readline's Alt-B). */
function wordStart(chars: string[], caret: number): number {
  let i = caret;
  while (i > 0 && !isWordChar(chars[i - 1])) i--;
  while (i > 0 && isWordChar(chars[i - 1])) i--;
  return i;
}

/** The caret after skipping non-word characters, then a word (readline's Alt-F). */
function wordEnd(chars: string[], caret: number): number {
  let i = caret;
  while (i < chars.length && !isWordChar(chars[i])) i++;
  while (i < chars.length && isWordChar(chars[i])) i++;
  return i;
}

const line = (chars: string[], caret: number, clipped = false): EditedLine => ({
  text: chars.join(''),
  caret: Math.max(0, Math.min(caret, chars.length)),
  clipped,
});

/** Back over spaces, then to the space before the text (readline's Ctrl-W: a whole path goes at once). */
function spaceStart(chars: string[], caret: number): number {
  let i = caret;
  while (i > 0 && chars[i - 1] === ' ') i--;
  while (i > 0 && chars[i - 1] !== ' ') i--;
  return i;
}

/** Readline's moves and kills; null for a key that is none of them. */
function readlineKey(chars: string[], caret: number, input: string, key: Key): EditedLine | null {
  if (key.home || (key.ctrl && input === 'a')) return line(chars, 0);
  if (key.end || (key.ctrl && input === 'e')) return line(chars, chars.length);
  if (key.leftArrow && !key.meta) return line(chars, caret - 1);
  if (key.rightArrow && !key.meta) return line(chars, caret + 1);
  if (key.ctrl && input === 'u') return line(chars.slice(caret), 0);
  if (key.ctrl && input === 'k') return line(chars.slice(0, caret), caret);
  if (key.ctrl && input === 'w') {
    const from = spaceStart(chars, caret);
    return line([...chars.slice(0, from), ...chars.slice(caret)], from);
  }
  // Alt-B / Alt-F: Ink reports ESC b as meta+b; some terminals send Alt-←/→ instead
  if ((key.meta && input === 'b') || (key.meta && key.leftArrow)) return line(chars, wordStart(chars, caret));
  if ((key.meta && input === 'f') || (key.meta && key.rightArrow)) return line(chars, wordEnd(chars, caret));
  return null;
}

/**
 * The line after a key press in a one-line field, or null when the key is not an edit (Enter, Tab,
 * ↑↓, …, which the field's owner handles). Text goes in at the caret; Backspace deletes before it.
 * Ink delivers a fast burst of keys as one string, so backspaces inside it are applied in order.
 */
export function editLine(current: Line, input: string, key: Key, maxLength = 500): EditedLine | null {
  const chars = [...current.text];
  const caret = Math.max(0, Math.min(current.caret, chars.length));
  const moved = readlineKey(chars, caret, input, key);
  if (moved) return moved;
  if (key.backspace || key.delete)
    return caret === 0 ? null : line([...chars.slice(0, caret - 1), ...chars.slice(caret)], caret - 1);
  if (key.ctrl || key.meta || key.escape || key.return || key.tab || key.upArrow || key.downArrow) return null;
  if (key.pageUp || key.pageDown || !input) return null;
  const before = chars.slice(0, caret);
  let changed = false;
  for (const ch of input) {
    if (ch === '\x7f' || ch === '\b') {
      changed = before.pop() !== undefined || changed;
    } else {
      const clean = sanitize(ch, 10);
      if (clean) {
        before.push(clean);
        changed = true;
      }
    }
  }
  if (!changed) return null;
  const after = chars.slice(caret);
  const room = Math.max(0, maxLength - after.length);
  return line([...before.slice(0, room), ...after], Math.min(before.length, room), before.length > room);
}

/** The line with pasted text (already one clean line) at the caret, cut to the field's limit. */
export function pasteIntoLine(current: Line, pasted: string, maxLength = 500): EditedLine {
  const chars = [...current.text];
  const caret = Math.max(0, Math.min(current.caret, chars.length));
  const before = [...chars.slice(0, caret), ...pasted];
  const after = chars.slice(caret);
  const room = Math.max(0, maxLength - after.length);
  return line([...before.slice(0, room), ...after], Math.min(before.length, room), before.length > room);
}
