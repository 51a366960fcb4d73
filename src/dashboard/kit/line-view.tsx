import React, { useEffect } from 'react';
import { Box, Text } from 'ink';
import { colour, markOf, toneOf, type Tone } from './theme.js';
import { sanitize } from '../../text/sanitize.js';
import { fit, truncate, widthOf, wrapText } from './text.js';

/**
 * Custom views (deployment, settings, identity) as a list of one-line rows built for the width,
 * so their height is known exactly: they scroll with the shell's cursor keys and nothing wraps.
 */
export interface Seg {
  text: string;
  tone?: Tone;
  bold?: boolean;
  dim?: boolean;
}
export type Line = Seg[];

export const seg = (text: unknown, style: Omit<Seg, 'text'> = {}): Seg => ({
  text: sanitize(text ?? '', 2000),
  ...style,
});
export const plain = (text: unknown): Line => [seg(text)];
export const heading = (text: string): Line => [seg(text, { bold: true })];
export const blank = (): Line => [seg('')];

/** "● healthy", "✕ down": the word always says what the colour says (NO_COLOR). */
export function badge(state: unknown, width?: number): Seg {
  const word = typeof state === 'string' && state ? state : '?';
  const tone = toneOf(word);
  const text = `${markOf(tone)} ${word}`;
  return seg(width ? fit(text, width) : text, { tone, bold: tone === 'bad' });
}

/** A text cut or padded to `width` columns. */
export const cell = (text: unknown, width: number, style: Omit<Seg, 'text'> = {}): Seg =>
  seg(fit(sanitize(text ?? '', 500), width), style);

/** Wraps `text` into lines: the first after `lead`, the rest indented to line up under it. */
export function wrapped(lead: Seg[], text: unknown, width: number, style: Omit<Seg, 'text'> = {}): Line[] {
  const used = lead.reduce((n, s) => n + widthOf(s.text), 0);
  const room = Math.max(10, width - used);
  const parts = wrapText(sanitize(text ?? '', 4000), room);
  return parts.map((p, i) =>
    i === 0 ? [...lead, seg(p, style)] : [seg(' '.repeat(Math.min(used, Math.max(0, width - 10)))), seg(p, style)],
  );
}

/** Key/value pairs with the keys in one column: "  hostname      vm". */
export function pairs(rows: [string, unknown, Omit<Seg, 'text'>?][], width: number, indent = 2, maxKey = 24): Line[] {
  const keyWidth = Math.min(maxKey, Math.max(0, ...rows.map(([k]) => widthOf(k))));
  return rows.flatMap(([k, v, style]) =>
    wrapped([seg(' '.repeat(indent)), cell(k, keyWidth, { dim: true }), seg('  ')], v, width, style ?? {}),
  );
}

export interface LineViewProps {
  lines: Line[];
  /** lines kept on top while the rest scrolls */
  fixed?: Line[];
  width: number;
  height: number;
  scroll: number;
  setScroll(n: number): void;
}

/** Draws `fixed`, then the window of `lines` at `scroll` (clamped), then the position when it scrolls. */
export function LineView({ lines, fixed = [], width, height, scroll, setScroll }: LineViewProps) {
  const room = Math.max(1, height - fixed.length);
  const scrolls = lines.length > room;
  const visible = scrolls ? room - 1 : room;
  const max = Math.max(0, lines.length - visible);
  const at = Math.min(Math.max(0, scroll), max);
  // End moves the scroll far past the content; bring it back so ↑ moves at once.
  useEffect(() => {
    if (scroll > max) setScroll(max);
  }, [scroll, max, setScroll]);
  const shown = lines.slice(at, at + visible);
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      {fixed.map((l, i) => (
        <LineText key={`f${i}`} line={l} width={width} />
      ))}
      {shown.map((l, i) => (
        <LineText key={at + i} line={l} width={width} />
      ))}
      {scrolls ? (
        <Text dimColor wrap="truncate">
          {truncate(`  lines ${at + 1}–${at + shown.length} of ${lines.length} · ↑↓ PgUp PgDn Home End scroll`, width)}
        </Text>
      ) : null}
    </Box>
  );
}

function LineText({ line, width }: { line: Line; width: number }) {
  let left = width;
  return (
    <Text wrap="truncate">
      {line.map((s, i) => {
        const t = truncate(s.text, Math.max(0, left));
        left -= widthOf(t);
        return (
          <Text key={i} color={colour(s.tone)} bold={s.bold} dimColor={s.dim}>
            {t}
          </Text>
        );
      })}
      {line.length === 0 || line.every((s) => s.text === '') ? ' ' : ''}
    </Text>
  );
}
