import React, { useState } from 'react';
import { Box, Text } from 'ink';
import { Frame, innerWidth, lines } from './Frame.js';
import { TextInput } from '../TextInput.js';
import { colour } from '../../kit/theme.js';
import { sanitize } from '../../../text/sanitize.js';
import { truncate } from '../../kit/text.js';

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
  const [value, setValue] = useState('');
  const [wrong, setWrong] = useState(false);
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
        <Text>{'> '}</Text>
        <TextInput
          value={value}
          onChange={(v) => {
            setValue(v);
            setWrong(false);
          }}
          onSubmit={(v) => (v === p.expected ? p.onDone(true) : setWrong(true))}
          onCancel={() => p.onDone(false)}
          isActive={p.isActive}
          width={w - 2}
          maxLength={200}
        />
      </Box>
      {wrong ? <Text color={colour('bad')}>✕ does not match; nothing was sent</Text> : null}
    </Frame>
  );
}
