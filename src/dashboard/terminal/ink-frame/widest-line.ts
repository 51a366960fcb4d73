import { displayWidth } from '../../../text/display-width.js';
import { BoundedMap } from '../../../text/bounded-map.js';

/**
 * widest-line, remembered and with displayWidth's fast path. Ink measures each text of the frame
 * twice (for layout in measure-text, then to decide whether to wrap or cut it) and again on every
 * frame; one cache for both. Replaces widest-line in those two Ink modules (scripts/ink-frame.mjs).
 */
const cache = new BoundedMap<string, number>(2000);

export default function widestLine(text: string): number {
  let width = cache.get(text);
  if (width === undefined) {
    width = 0;
    for (const line of text.split('\n')) width = Math.max(width, displayWidth(line));
    cache.set(text, width);
  }
  return width;
}
