import React, { useRef, useState } from 'react';
import { Text, useInput } from 'ink';
import { pastedLine } from './dialogs/edit.js';
import { editLine, lineAtEnd, pasteIntoLine, type Line } from './line-edit.js';
import { CaretText } from './CaretText.js';
import { usePaste } from '../terminal/paste.js';
import { truncateStart } from '../kit/text.js';

export interface TextInputProps {
  value: string;
  onChange(v: string): void;
  onSubmit?(v: string): void;
  onCancel?(): void;
  /** Tab and Shift-Tab, for completion or moving between fields */
  onTab?(shift: boolean): void;
  isActive: boolean;
  placeholder?: string;
  width?: number;
  maxLength?: number;
}

/**
 * One-line input that edits like readline (src/dashboard/widgets/line-edit.ts): Ctrl-A/E, Alt-B/F and ←→ move
 * the caret, Ctrl-U/K/W kill. A paste arrives whole, as one line, at the caret.
 */
export function TextInput(p: TextInputProps) {
  // The newest text and caret, even before the parent re-renders with the value (see useLiveState).
  const latest = useRef<Line>(lineAtEnd(p.value));
  const seen = useRef(p.value);
  const [, redraw] = useState(0);
  // a value set from outside (a completion, a cleared filter) puts the caret at its end
  if (seen.current !== p.value) {
    seen.current = p.value;
    if (latest.current.text !== p.value) latest.current = lineAtEnd(p.value);
  }
  const apply = (next: Line) => {
    const changed = next.text !== latest.current.text;
    latest.current = { text: next.text, caret: next.caret };
    if (changed) p.onChange(next.text);
    else redraw((n) => n + 1);
  };
  useInput(
    (input, key) => {
      if (key.escape) return p.onCancel?.();
      if (key.return) return p.onSubmit?.(latest.current.text);
      if (key.tab) return p.onTab?.(key.shift);
      const next = editLine(latest.current, input, key, p.maxLength ?? 500);
      if (next) apply(next);
    },
    { isActive: p.isActive },
  );
  usePaste(
    (text) => {
      const line = pastedLine(text);
      if (line) apply(pasteIntoLine(latest.current, line, p.maxLength ?? 500));
      return true;
    },
    { isActive: p.isActive },
  );
  if (p.value === '' && p.placeholder) {
    const visible = p.width ? truncateStart(p.placeholder, p.width - 1) : p.placeholder;
    return (
      <Text wrap="truncate">
        <Text dimColor>{visible}</Text>
        {p.isActive ? <Text inverse> </Text> : null}
      </Text>
    );
  }
  if (!p.isActive) return <Text wrap="truncate">{p.width ? truncateStart(p.value, p.width - 1) : p.value}</Text>;
  const caret = latest.current.text === p.value ? latest.current.caret : [...p.value].length;
  return (
    <Text wrap="truncate">
      <CaretText text={p.value} caret={caret} width={p.width ?? 1000} />
    </Text>
  );
}
