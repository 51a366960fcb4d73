import React from 'react';
import { Box, Text, useInput } from 'ink';
import { Frame, lines } from './Frame.js';
import { colour } from '../../kit/theme.js';
import { sanitize } from '../../../text/sanitize.js';
import { useLiveState } from '../../terminal/hooks.js';

export interface ConfirmProps {
  title: string;
  message: string | string[];
  confirmLabel?: string;
  danger?: boolean;
  width: number;
  isActive: boolean;
  onDone(ok: boolean): void;
}

/** Two buttons; the focus starts on Cancel, so Enter alone never confirms. */
export function ConfirmDialog(p: ConfirmProps) {
  const [focus, setFocus, getFocus] = useLiveState<0 | 1>(0);
  useInput(
    (input, key) => {
      if (key.escape) return p.onDone(false);
      if (key.return) return p.onDone(getFocus() === 1);
      if (key.leftArrow || key.rightArrow || key.tab || input === 'h' || input === 'l')
        setFocus((f) => (f === 0 ? 1 : 0));
    },
    { isActive: p.isActive },
  );
  const label = p.confirmLabel ?? 'Confirm';
  return (
    <Frame
      title={p.title}
      tone={p.danger ? 'bad' : 'accent'}
      width={p.width}
      footer="←/→ choose · Enter select · Esc cancel"
    >
      {lines(p.message).map((l, i) => (
        <Text key={i} wrap="wrap">
          {sanitize(l, 500)}
        </Text>
      ))}
      <Box marginTop={1} gap={2}>
        <Text inverse={focus === 0} bold={focus === 0}>
          {focus === 0 ? '› ' : '  '}[ Cancel ]
        </Text>
        <Text
          inverse={focus === 1}
          bold={focus === 1}
          color={focus === 1 ? undefined : colour(p.danger ? 'bad' : undefined)}
        >
          {focus === 1 ? '› ' : '  '}[ {label} ]
        </Text>
      </Box>
    </Frame>
  );
}
