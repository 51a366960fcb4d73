import React from 'react';
import { Text, useInput } from 'ink';
import { Frame, innerWidth } from './Frame.js';
import { ProgressBar } from '../ProgressBar.js';
import { colour, type Tone } from '../../kit/theme.js';
import { sanitize } from '../../../text/sanitize.js';

export interface ProgressProps {
  title: string;
  lines: string[];
  fraction: number | null | undefined;
  tone?: Tone;
  width: number;
  isActive: boolean;
  /** Esc ends the work itself (a verify, a pack): the footer says so */
  escStops?: boolean;
  /** Esc: stop following (the work itself goes on where it runs), or stop it (escStops) */
  onCancel(): void;
}

export function ProgressDialog(p: ProgressProps) {
  useInput(
    (_input, key) => {
      if (key.escape) p.onCancel();
    },
    { isActive: p.isActive },
  );
  return (
    <Frame
      title={p.title}
      tone={p.tone ?? 'info'}
      width={p.width}
      footer={p.escStops ? 'Esc stop' : 'Esc stop following'}
    >
      {p.lines.map((l, i) => (
        <Text key={i} wrap="truncate" color={i === 0 ? colour(p.tone) : undefined}>
          {sanitize(l, 500) || ' '}
        </Text>
      ))}
      {p.fraction !== undefined ? <ProgressBar fraction={p.fraction} width={innerWidth(p.width)} /> : null}
    </Frame>
  );
}
