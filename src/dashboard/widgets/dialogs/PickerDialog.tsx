import React from 'react';
import type { PickerItem } from '../../kit/dialog-specs.js';
import { useLiveState } from '../../terminal/hooks.js';
import { Text, useInput } from 'ink';
import { Frame, innerWidth } from './Frame.js';
import { scrollFor } from '../../kit/table-layout.js';
import { sanitize } from '../../../text/sanitize.js';
import { fit, wrapText } from '../../kit/text.js';
import { hiddenMarker } from '../scroll-window.js';

export interface PickerProps {
  title: string;
  message?: string;
  items: PickerItem[];
  width: number;
  height: number;
  isActive: boolean;
  /** index chosen, or null when cancelled */
  onDone(index: number | null): void;
}

/** Choose one item: ↑↓ (or j/k), Enter, Esc. */
export function PickerDialog(p: PickerProps) {
  const [pos, setPos, getPos] = useLiveState({ cursor: 0, scroll: 0 });
  const { cursor, scroll } = pos;
  const w = innerWidth(p.width);
  const message = p.message ? wrapText(sanitize(p.message, 500), w) : [];
  // the frame takes 7 lines, the message its own: a message of several lines takes room from the list,
  // else the frame's bottom falls off a short terminal
  const room = Math.max(1, p.height - 7 - Math.max(1, message.length));
  // a list longer than the room gives its last line to saying how much is out of sight
  const overflow = p.items.length > room;
  const shown = overflow ? Math.max(1, room - 1) : room;
  useInput(
    (input, key) => {
      if (key.escape) return p.onDone(null);
      const now = getPos();
      if (key.return) return p.onDone(p.items.length ? now.cursor : null);
      let next = now.cursor;
      if (key.upArrow || input === 'k') next = now.cursor - 1;
      else if (key.downArrow || input === 'j') next = now.cursor + 1;
      else if (key.home) next = 0;
      else if (key.end) next = p.items.length - 1;
      else return;
      next = Math.max(0, Math.min(p.items.length - 1, next));
      setPos({ cursor: next, scroll: scrollFor(next, now.scroll, shown, p.items.length) });
    },
    { isActive: p.isActive },
  );
  const labelWidth = Math.min(w - 2, Math.max(...p.items.map((i) => sanitize(i.label, 200).length), 4));
  return (
    <Frame title={p.title} width={p.width} footer="↑↓ move · Enter choose · Esc cancel">
      {/* wrapped here, as the form's message is: Ink's own wrap starts a line with the space it broke at */}
      {message.map((l, i) => (
        <Text key={`m${i}`} wrap="truncate">
          {l}
        </Text>
      ))}
      {p.items.length === 0 ? <Text dimColor>Nothing to choose from.</Text> : null}
      {p.items.slice(scroll, scroll + shown).map((item, n) => {
        const i = scroll + n;
        const selected = i === cursor;
        const hint = item.hint ? `  ${sanitize(item.hint, 200)}` : '';
        return (
          <Text key={i} inverse={selected} bold={selected} wrap="truncate">
            {selected ? '› ' : '  '}
            {fit(sanitize(item.label, 200), labelWidth)}
            <Text dimColor={!selected}>{hint}</Text>
          </Text>
        );
      })}
      {overflow ? <Text dimColor>{hiddenMarker(scroll, shown, p.items.length, { down: '↓', up: '↑' })}</Text> : null}
    </Frame>
  );
}
