import React from 'react';
import type { MessageChoice } from '../../kit/dialog-specs.js';
import { Text, useInput } from 'ink';
import { Frame, innerWidth } from './Frame.js';
import { hangingWrap } from './hanging-wrap.js';
import { colour, markOf, type Tone } from '../../kit/theme.js';
import { sanitize } from '../../../text/sanitize.js';
import { useScrollWindow } from '../scroll-window.js';

export interface MessageProps {
  title: string;
  lines: string[];
  tone?: Tone;
  choices?: MessageChoice[];
  width: number;
  height: number;
  isActive: boolean;
  /** the choice's key, or nothing when Enter or Esc closed it */
  onDone(choice?: string): void;
}

const BADGE: Partial<Record<Tone, string>> = { ok: 'DONE', bad: 'ERROR', warn: 'NOTE' };

/**
 * A result or an explanation; Enter or Esc closes it, a choice's key too (the footer names them).
 * Taller than the room (a result with its audit entry at 80x24): it scrolls with ↑↓ PgUp PgDn Home
 * End, and a last line says what is hidden.
 */
export function MessageDialog(p: MessageProps) {
  const all = p.lines.flatMap((l, i) =>
    hangingWrap(sanitize(l, 2000) || ' ', innerWidth(p.width)).map((text) => ({ text, first: i === 0 })),
  );
  // border, title, two margins and the footer take 6 lines; the "more" line one
  const shown = Math.max(1, p.height - 7);
  const scrolls = all.length > shown;
  const { top, onKey, marker } = useScrollWindow(all.length, shown);
  useInput(
    (input, key) => {
      if (key.escape || key.return) return p.onDone();
      const choice = p.choices?.find((c) => c.key === input);
      if (choice) return p.onDone(choice.key);
      if (scrolls) onKey(input, key);
    },
    { isActive: p.isActive },
  );
  const badge = p.tone && BADGE[p.tone] ? `${markOf(p.tone)} ${BADGE[p.tone]}  ` : '';
  return (
    <Frame
      title={`${badge}${p.title}`}
      tone={p.tone}
      width={p.width}
      footer={
        p.choices?.length
          ? // the choices first: on a narrow frame the footer is cut at its end
            [...p.choices.map((c) => `${c.key} ${c.label}`), ...(scrolls ? ['↑↓ scroll'] : []), 'Enter/Esc close'].join(
              ' · ',
            )
          : scrolls
            ? '↑↓ PgUp PgDn scroll · Enter or Esc to close'
            : 'Enter or Esc to close'
      }
    >
      {all.slice(top, top + shown).map((l, i) => (
        <Text key={top + i} wrap="truncate" color={l.first && p.tone === 'bad' ? colour('bad') : undefined}>
          {l.text}
        </Text>
      ))}
      {scrolls ? (
        <Text dimColor wrap="truncate">
          {marker}
        </Text>
      ) : null}
    </Frame>
  );
}
