import React from 'react';
import { Text } from 'ink';
import { truncate, truncateStart, widthOf } from '../kit/text.js';

/**
 * A field's text with its caret (an inverse cell) where the typing goes, fitted to `width`
 * columns: the text around the caret stays in view, cut with … on either side.
 */
export function CaretText({
  text,
  caret,
  width,
  underline,
}: {
  text: string;
  caret: number;
  width: number;
  underline?: boolean;
}) {
  const chars = [...text];
  const before = chars.slice(0, caret).join('');
  const under = chars[caret] ?? ' ';
  const rest = chars.slice(caret + 1).join('');
  let shownBefore = before;
  let shownRest = rest;
  const room = Math.max(1, width - widthOf(under));
  if (widthOf(before) + widthOf(rest) > room) {
    // the caret keeps two thirds of the room behind it, where the last typing is
    shownBefore = truncateStart(before, Math.max(1, room - Math.min(widthOf(rest), Math.floor(room / 3))));
    shownRest = truncate(rest, room - widthOf(shownBefore));
  }
  return (
    <Text underline={underline}>
      {shownBefore}
      <Text inverse>{under}</Text>
      {shownRest}
    </Text>
  );
}
