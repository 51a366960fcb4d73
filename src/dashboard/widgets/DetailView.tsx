import React, { useMemo } from 'react';
import { Box, Text } from 'ink';
import { flatten } from '../kit/flatten.js';
import { sanitize } from '../../text/sanitize.js';
import { fit, truncate, widthOf } from '../kit/text.js';

export interface DetailViewProps {
  title: string;
  value: unknown;
  width: number;
  height: number;
  scroll: number;
}

/** Lines of the detail view for `value` at `width`; long values wrap onto following lines. */
export function detailLines(value: unknown, width: number): string[] {
  const pairs = flatten(value).map(([k, v]) => [sanitize(k, 200), sanitize(v, 4000)] as const);
  const keyWidth = Math.min(
    pairs.reduce((w, [k]) => Math.max(w, widthOf(k)), 8),
    Math.floor(width / 3),
  );
  const valueWidth = Math.max(10, width - keyWidth - 3);
  const lines: string[] = [];
  for (const [k, v] of pairs) {
    const chunks = wrap(v, valueWidth);
    chunks.forEach((c, i) => lines.push(`${i === 0 ? fitKey(k, keyWidth) : ' '.repeat(keyWidth)}   ${c}`));
  }
  return lines;
}

/**
 * A key path at `width`: cut in its parents, not its last name, which tells siblings apart
 * ("rejected_b….tokens_per_day" and "rejecte….tokens_per_minute", not twice "rejected_by_last_hour.tok…").
 */
function fitKey(k: string, width: number): string {
  const dot = k.lastIndexOf('.');
  if (widthOf(k) <= width || dot <= 0) return fit(k, width);
  const leaf = k.slice(dot);
  const room = width - widthOf(leaf);
  return room >= 2 ? fit(`${truncate(k.slice(0, dot), room)}${leaf}`, width) : fit(k, width);
}

function wrap(s: string, width: number): string[] {
  if (widthOf(s) <= width) return [s];
  const out: string[] = [];
  let line = '';
  for (const ch of s) {
    if (widthOf(line + ch) > width) {
      out.push(line);
      line = '';
    }
    line += ch;
  }
  if (line) out.push(line);
  return out;
}

/** Every field the server sent (unknown ones too), nested objects as key paths; scrollable. */
export function DetailView(p: DetailViewProps) {
  const lines = useMemo(() => detailLines(p.value, p.width - 2), [p.value, p.width]);
  const room = Math.max(1, p.height - 2);
  const scroll = Math.max(0, Math.min(p.scroll, lines.length - room));
  return (
    <Box flexDirection="column" height={p.height} overflow="hidden">
      <Text bold wrap="truncate">
        {truncate(`Detail: ${sanitize(p.title, 200)}`, p.width)}
      </Text>
      {lines.slice(scroll, scroll + room).map((l, i) => (
        <Text key={i} wrap="truncate">
          {l}
        </Text>
      ))}
      <Box flexGrow={1} />
      <Text dimColor wrap="truncate">
        {`  lines ${lines.length ? scroll + 1 : 0}–${Math.min(lines.length, scroll + room)} of ${lines.length} · ↑↓ PgUp PgDn scroll · Esc back`}
      </Text>
    </Box>
  );
}
