import React, { useState } from 'react';
import { useLiveState } from '../hooks.js';
import { Box, Text, useInput } from 'ink';
import { Frame, innerWidth, lines } from './Frame.js';
import { editText, insertPaste } from './edit.js';
import { usePaste } from '../paste.js';
import { colour } from '../theme.js';
import { sanitize } from '../../text/sanitize.js';
import { truncate, truncateStart } from '../text.js';

export interface TypeToConfirmProps {
  title: string;
  message: string | string[];
  expected: string;
  width: number;
  isActive: boolean;
  onDone(ok: boolean): void;
}

/** Confirms only when the user types `expected` exactly; Esc cancels. */
export function TypeToConfirmDialog(p: TypeToConfirmProps) {
  const [value, setValue, getValue] = useLiveState('');
  const [wrong, setWrong] = useState(false);
  useInput(
    (input, key) => {
      if (key.escape) return p.onDone(false);
      if (key.return) {
        if (getValue() === p.expected) return p.onDone(true);
        return setWrong(true);
      }
      const next = editText(getValue(), input, key, 200);
      if (next !== null) {
        setValue(next);
        setWrong(false);
      }
    },
    { isActive: p.isActive },
  );
  usePaste(
    (text) => {
      const next = insertPaste(getValue(), text, 200);
      if (next) {
        setValue(next.value);
        setWrong(false);
      }
      return true;
    },
    { isActive: p.isActive },
  );
  const w = innerWidth(p.width);
  return (
    <Frame title={p.title} tone="bad" width={p.width} footer="Enter confirm · Esc cancel">
      {lines(p.message).map((l, i) => (
        <Text key={i} wrap="wrap">
          {sanitize(l, 500)}
        </Text>
      ))}
      <Text>
        Type <Text bold>{truncate(p.expected, w - 20)}</Text> to confirm:
      </Text>
      <Box>
        <Text>
          {'> '}
          {truncateStart(value, w - 4)}
        </Text>
        <Text inverse> </Text>
      </Box>
      {wrong ? <Text color={colour('bad')}>✕ does not match; nothing was sent</Text> : null}
    </Frame>
  );
}
