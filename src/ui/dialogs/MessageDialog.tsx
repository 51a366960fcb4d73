import React from 'react';
import { Text, useInput } from 'ink';
import { Frame, innerWidth } from './Frame.js';
import { wrapText } from '../text.js';
import { colour, markOf, type Tone } from '../theme.js';
import { sanitize } from '../sanitize.js';

export interface MessageProps {
  title: string;
  lines: string[];
  tone?: Tone;
  width: number;
  height: number;
  isActive: boolean;
  onDone(): void;
}

const BADGE: Partial<Record<Tone, string>> = { ok: 'DONE', bad: 'ERROR', warn: 'NOTE' };

/** A result or an explanation; Enter or Esc closes it. */
export function MessageDialog(p: MessageProps) {
  useInput(
    (_input, key) => {
      if (key.escape || key.return) p.onDone();
    },
    { isActive: p.isActive },
  );
  const badge = p.tone && BADGE[p.tone] ? `${markOf(p.tone)} ${BADGE[p.tone]}  ` : '';
  const room = Math.max(1, p.height - 7);
  const all = p.lines.flatMap((l, i) => wrapText(sanitize(l, 2000) || ' ', innerWidth(p.width)).map((text) => ({ text, first: i === 0 })));
  const shown = all.slice(0, room);
  return (
    <Frame title={`${badge}${p.title}`} tone={p.tone} width={p.width} footer="Enter or Esc to close">
      {shown.map((l, i) => (
        <Text key={i} wrap="truncate" color={l.first && p.tone === 'bad' ? colour('bad') : undefined}>
          {l.text}
        </Text>
      ))}
      {all.length > shown.length ? <Text dimColor>… {all.length - shown.length} more lines (make the window taller)</Text> : null}
    </Frame>
  );
}
