import React from 'react';
import { Box, Text, useInput } from 'ink';
import { fit, truncate } from './text.js';
import { useScrollWindow } from './scroll-window.js';
import type { HintAction } from './KeyHints.js';

const SORT_KEYS = 's  S';

export const GLOBAL_BINDINGS: [string, string][] = [
  ['↑ ↓  j k', 'move the cursor'],
  ['PgUp PgDn', 'move a page'],
  ['Home End  g G', 'first / last row'],
  ['Enter', 'detail view of the row: every field the server sent'],
  ['Esc', 'back (closes detail, help, dialogs; clears the filter)'],
  ['Tab  Shift-Tab', 'next / previous screen'],
  [':', 'command line: a screen name (Tab completes), or q to quit'],
  ['/', 'filter the rows (Enter keeps it, Esc clears it)'],
  [SORT_KEYS, 'sort the list (its screen says how)'],
  ['r', 'refresh now (also skips a reconnect wait; when signed out: sign in again)'],
  ['?', 'this help'],
  ['q  :q  Ctrl-C', 'quit'],
];

interface HelpProps {
  screen: string;
  actions: (HintAction & { mutates: boolean; unavailable?: string | null })[];
  width: number;
  height: number;
  /** the screen offers `/` (src/ui/screen-api.ts offersFilter) */
  filter?: boolean;
  /** what s and S do on this screen, or null where they do nothing (a custom view) */
  sort?: string | null;
  /** false while the shell shows something else in its place (a window too small) */
  isActive?: boolean;
  /** Enter opens the screen of a row's cause (the overview) instead of its detail */
  opens?: boolean;
}

const OPENS: [string, string] = ['Enter', "open the screen that shows the row's cause, on that cause"];

export function HelpOverlay({
  screen,
  actions,
  width,
  height,
  filter = true,
  sort = null,
  isActive = true,
  opens = false,
}: HelpProps) {
  const keyWidth = 16;
  const rows: { key: string; text: string; dim?: boolean; head?: boolean }[] = [
    { key: '', text: 'Keys everywhere', head: true },
    ...GLOBAL_BINDINGS.filter(([k]) => (filter || k !== '/') && (sort || k !== SORT_KEYS))
      .map((b) => (opens && b[0] === 'Enter' ? OPENS : b))
      .map(([k, t]) => ({ key: k, text: k === SORT_KEYS && sort ? sort : t })),
    { key: '', text: '' },
    { key: '', text: `Actions on this screen (${screen})`, head: true },
    ...(actions.length ? [] : [{ key: '', text: 'none: this screen only shows data', dim: true }]),
    ...actions.map((a) => ({
      key: a.key,
      text: `${a.label}${a.mutates ? ' (changes the appliance)' : ''}${a.disabled ? ` — ✕ ${a.disabled}` : ''}`,
      dim: !!a.disabled,
    })),
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
