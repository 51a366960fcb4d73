import React, { type ReactNode } from 'react';
import { Box, Text } from 'ink';
import { colour, type Tone } from '../../kit/theme.js';
import { truncate } from '../../kit/text.js';

/** The box every dialog is drawn in, centred in the body area. */
export function Frame({
  title,
  tone,
  width,
  children,
  footer,
}: {
  title: string;
  tone?: Tone;
  width: number;
  children: ReactNode;
  footer?: string;
}) {
  const w = Math.max(30, Math.min(76, width - 4));
  return (
    <Box width={width} justifyContent="center">
      <Box flexDirection="column" width={w} borderStyle="round" borderColor={colour(tone ?? 'accent')} paddingX={1}>
        <Text bold wrap="truncate">
          {truncate(title, w - 4)}
        </Text>
        <Box flexDirection="column" marginTop={1}>
          {children}
        </Box>
        {footer ? (
          <Box marginTop={1}>
            <Text dimColor wrap="truncate">
              {footer}
            </Text>
          </Box>
        ) : null}
      </Box>
    </Box>
  );
}

/** Width inside a Frame for `width` (border and padding taken off). */
export const innerWidth = (width: number) => Math.max(30, Math.min(76, width - 4)) - 4;

export const lines = (m: string | string[] | undefined): string[] =>
  m === undefined ? [] : Array.isArray(m) ? m : [m];
