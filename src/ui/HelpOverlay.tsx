import React from 'react';
import { Box, Text } from 'ink';
import { fit, truncate } from './text.js';
import type { HintAction } from './KeyHints.js';

export const GLOBAL_BINDINGS: [string, string][] = [
  ['↑ ↓  j k', 'move the cursor'],
  ['PgUp PgDn', 'move a page'],
  ['Home End  g G', 'first / last row'],
  ['Enter', 'detail view of the row: every field the server sent'],
  ['Esc', 'back (closes detail, help, dialogs; clears the filter)'],
  ['Tab  Shift-Tab', 'next / previous screen'],
  [':', 'command line: a screen name (Tab completes), or q to quit'],
  ['/', 'filter the rows (Enter keeps it, Esc clears it)'],
  ['r', 'refresh now (also skips a reconnect wait; when signed out: sign in again)'],
  ['?', 'this help'],
  ['q  :q  Ctrl-C', 'quit'],
];

export function HelpOverlay({ screen, actions, width, height }: { screen: string; actions: (HintAction & { mutates: boolean; unavailable?: string | null })[]; width: number; height: number }) {
  const keyWidth = 16;
  const rows: { key: string; text: string; dim?: boolean; head?: boolean }[] = [
    { key: '', text: 'Keys everywhere', head: true },
    ...GLOBAL_BINDINGS.map(([k, t]) => ({ key: k, text: t })),
    { key: '', text: '' },
    { key: '', text: `Actions on this screen (${screen})`, head: true },
    ...(actions.length ? [] : [{ key: '', text: 'none: this screen only shows data', dim: true }]),
    ...actions.map((a) => ({
      key: a.key,
      text: `${a.label}${a.mutates ? ' (changes the appliance)' : ''}${a.disabled ? ` — ✕ ${a.disabled}` : ''}`,
      dim: !!a.disabled,
    })),
  ];
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Text bold>Help · Esc or ? to close</Text>
      {rows.slice(0, height - 1).map((r, i) =>
        r.head ? (
          <Text key={i} bold underline wrap="truncate">{r.text}</Text>
        ) : (
          <Text key={i} dimColor={r.dim} wrap="truncate">
            {'  '}{fit(r.key, keyWidth)}{truncate(r.text, Math.max(10, width - keyWidth - 4))}
          </Text>
        ),
      )}
    </Box>
  );
}
