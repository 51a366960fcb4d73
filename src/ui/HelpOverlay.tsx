import React from 'react';
import { Box, Text, useInput } from 'ink';
import { fit, truncate } from './text.js';
import { useScrollWindow } from './scroll-window.js';
import type { HintAction } from './KeyHints.js';

interface HelpProps {
  screen: string;
  /** the shell's keys on this screen, and what they do (src/app/keymap.ts shellHelp) */
  bindings: [keys: string, text: string][];
  actions: (HintAction & { mutates: boolean })[];
  /** the `:` commands and what they do (src/app/commands.ts commandHelp) */
  commands: [usage: string, text: string][];
  width: number;
  height: number;
  /** false while the shell shows something else in its place (a window too small) */
  isActive?: boolean;
}

export function HelpOverlay({ screen, bindings, actions, commands, width, height, isActive = true }: HelpProps) {
  const keyWidth = 16;
  const rows: { key: string; text: string; dim?: boolean; head?: boolean }[] = [
    { key: '', text: 'Keys everywhere', head: true },
    ...bindings.map(([key, text]) => ({ key, text })),
    { key: '', text: '' },
    { key: '', text: `Actions on this screen (${screen})`, head: true },
    ...(actions.length ? [] : [{ key: '', text: 'none: this screen only shows data', dim: true }]),
    ...actions.map((a) => ({
      key: a.key,
      text: `${a.label}${a.mutates ? ' (changes the appliance)' : ''}${a.disabled ? ` — ✕ ${a.disabled}` : ''}`,
      dim: !!a.disabled,
    })),
    { key: '', text: '' },
    { key: '', text: 'Commands after : (Tab completes them and their arguments)', head: true },
    ...commands.map(([name, text]) => ({ key: name, text })),
  ];
  // Taller than the room (80x24 with many actions): it scrolls, and a last line says what is hidden.
  const room = Math.max(1, height - 1);
  const scrolls = rows.length > room;
  const shown = scrolls ? Math.max(1, room - 1) : room;
  const { top, onKey, marker } = useScrollWindow(rows.length, shown);
  useInput((input, key) => void onKey(input, key), { isActive: scrolls && isActive });
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Text bold wrap="truncate">
        Help · Esc or ? to close{scrolls ? ' · ↑↓ PgUp PgDn scroll' : ''}
      </Text>
      {rows.slice(top, top + shown).map((r, i) =>
        r.head ? (
          <Text key={top + i} bold underline wrap="truncate">
            {r.text}
          </Text>
        ) : (
          <Text key={top + i} dimColor={r.dim} wrap="truncate">
            {'  '}
            {fit(r.key, keyWidth)}
            {truncate(r.text, Math.max(10, width - keyWidth - 4))}
          </Text>
        ),
      )}
      {scrolls ? (
        <Text dimColor wrap="truncate">
          {marker}
        </Text>
      ) : null}
    </Box>
  );
}
