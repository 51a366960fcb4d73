import React from 'react';
import { Box, Text, useInput } from 'ink';
import { fit, widthOf, wrapText } from '../kit/text.js';
import { useScrollWindow } from './scroll-window.js';
import type { HintAction } from './KeyHints.js';

interface HelpProps {
  screen: string;
  /** the shell's keys on this screen, and what they do (src/dashboard/shell/keymap.ts shellHelp) */
  bindings: [keys: string, text: string][];
  actions: (HintAction & { mutates: boolean })[];
  /** the `:` commands and what they do (src/dashboard/shell/commands.ts commandHelp) */
  commands: [usage: string, text: string][];
  width: number;
  height: number;
  /** false while the shell shows something else in its place (a window too small) */
  isActive?: boolean;
}

/** Room for a key in the help's key column; a longer key (a rebinding) gets a line of its own. */
const KEY_WIDTH = 16;

interface HelpEntry {
  key: string;
  text: string;
  dim?: boolean;
  head?: boolean;
}

/**
 * The help's lines at `width`: each description wrapped at word boundaries beside its key, so a
 * narrow terminal shows every word (k9s does the same) instead of cutting the line.
 */
function helpLines(entries: HelpEntry[], width: number): HelpEntry[] {
  const textWidth = Math.max(10, width - KEY_WIDTH - 2);
  return entries.flatMap((e): HelpEntry[] => {
    if (e.head) return wrapText(e.text, width).map((text) => ({ key: '', text, head: true }));
    const wrapped = wrapText(e.text, textWidth).map((text) => ({ key: '', text, dim: e.dim }));
    if (widthOf(e.key) < KEY_WIDTH) return wrapped.map((l, i) => (i === 0 ? { ...l, key: e.key } : l));
    return [...wrapText(e.key, width - 2).map((key) => ({ key, text: '', dim: e.dim })), ...wrapped];
  });
}

/**
 * A screen's actions two to a line when every one fits half the width whole (a wide terminal and a
 * screen with many actions: the keys screen's help stays one page at 120x40); else one a line.
 * Two are paired only when both are dimmed or neither is: a line is dimmed whole.
 */
function sideBySide(entries: HelpEntry[], width: number): HelpEntry[] {
  const half = Math.floor((width - 2) / 2);
  const fits = (e: HelpEntry) => widthOf(e.key) < KEY_WIDTH && widthOf(e.text) < half - KEY_WIDTH;
  if (entries.length < 6 || !entries.every(fits)) return entries;
  const out: HelpEntry[] = [];
  for (let i = 0; i < entries.length; i++) {
    const [a, b] = [entries[i], entries[i + 1]];
    if (b && !!a.dim === !!b.dim) {
      out.push({ key: a.key, text: `${fit(a.text, half - KEY_WIDTH)}${fit(b.key, KEY_WIDTH)}${b.text}`, dim: a.dim });
      i++;
    } else out.push(a);
  }
  return out;
}

export function HelpOverlay({ screen, bindings, actions, commands, width, height, isActive = true }: HelpProps) {
  const entries: HelpEntry[] = [
    { key: '', text: 'Keys everywhere', head: true },
    ...bindings.map(([key, text]) => ({ key, text })),
    { key: '', text: '' },
    { key: '', text: `Actions on this screen (${screen})`, head: true },
    ...(actions.length ? [] : [{ key: '', text: 'none: this screen only shows data', dim: true }]),
    ...sideBySide(
      actions.map((a) => ({
        key: a.key,
        text: `${a.label}${a.mutates ? ' (changes the appliance)' : ''}${a.disabled ? ` — ✕ ${a.disabled.reason}` : ''}`,
        dim: !!a.disabled,
      })),
      width,
    ),
    { key: '', text: '' },
    { key: '', text: 'Commands after : (Tab completes them and their arguments)', head: true },
    ...commands.map(([name, text]) => ({ key: name, text })),
  ];
  const rows = helpLines(entries, width);
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
            {widthOf(r.key) < KEY_WIDTH ? fit(r.key, KEY_WIDTH) : r.key}
            {r.text}
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
