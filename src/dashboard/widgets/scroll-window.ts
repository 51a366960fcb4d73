import { useState } from 'react';
import type { Key } from 'ink';

/**
 * A window of `shown` lines over `total` (help, a long result): its first line, a key handler for
 * ↑↓ j k, PgUp PgDn, Home End g G (true when the key was one of them) and the line saying what is
 * hidden.
 */
export function useScrollWindow(total: number, shown: number) {
  const maxTop = Math.max(0, total - shown);
  const [wantedTop, setTop] = useState(0);
  const top = Math.min(wantedTop, maxTop);
  // Functional updates: keys can come faster than the handler is re-subscribed after a render.
  const onKey = (input: string, key: Key): boolean => {
    const clamp = (n: number) => Math.max(0, Math.min(maxTop, n));
    if (key.upArrow || input === 'k') setTop((t) => clamp(Math.min(t, maxTop) - 1));
    else if (key.downArrow || input === 'j') setTop((t) => clamp(Math.min(t, maxTop) + 1));
    else if (key.pageUp) setTop((t) => clamp(Math.min(t, maxTop) - shown));
    else if (key.pageDown) setTop((t) => clamp(t + shown));
    else if (key.home || input === 'g') setTop(0);
    else if (key.end || input === 'G') setTop(maxTop);
    else return false;
    return true;
  };
  return { top, onKey, marker: hiddenMarker(top, shown, total) };
}

/** What a window of `shown` lines from `top` leaves out of `total`, with the keys that reach it. */
export function hiddenMarker(top: number, shown: number, total: number, keys = { down: '↓ PgDn', up: '↑ PgUp' }) {
  const below = total - top - shown;
  return below > 0
    ? `… ${below} more below (${keys.down})${top > 0 ? `, ${top} above` : ''}`
    : `… ${top} above (${keys.up})`;
}
