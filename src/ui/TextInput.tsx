import React, { useRef } from 'react';
import { Text, useInput } from 'ink';
import { editText, insertPaste } from './dialogs/edit.js';
import { usePaste } from './paste.js';
import { truncateStart } from './text.js';

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

/** One-line input; the caret stays at the end. A paste arrives whole, as one line (insertPaste). */
export function TextInput(p: TextInputProps) {
  // The newest value, even before the parent re-renders with it (see useLiveState).
  const latest = useRef(p.value);
  const seen = useRef(p.value);
  if (seen.current !== p.value) latest.current = seen.current = p.value;
  useInput(
    (input, key) => {
      if (key.escape) return p.onCancel?.();
      if (key.return) return p.onSubmit?.(latest.current);
      if (key.tab) return p.onTab?.(key.shift);
      const next = editText(latest.current, input, key, p.maxLength ?? 500);
      if (next !== null) {
        latest.current = next;
        p.onChange(next);
      }
    },
    { isActive: p.isActive },
  );
  usePaste(
    (text) => {
      const next = insertPaste(latest.current, text, p.maxLength ?? 500);
      if (next && next.value !== latest.current) {
        latest.current = next.value;
        p.onChange(next.value);
      }
      return true;
    },
    { isActive: p.isActive },
  );
  const shown = p.value === '' && p.placeholder ? p.placeholder : p.value;
  const visible = p.width ? truncateStart(shown, p.width - 1) : shown;
  return (
    <Text wrap="truncate">
      {p.value === '' && p.placeholder ? <Text dimColor>{visible}</Text> : visible}
      {p.isActive ? <Text inverse> </Text> : null}
    </Text>
  );
}
