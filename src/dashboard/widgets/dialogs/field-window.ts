/**
 * Which fields of a form to show in `room` lines, each field taking `heights[i]` lines (its value,
 * plus a hint or error line): all of them when they fit, else the focused one and as many around
 * it as fit with the "↑ n more" and "↓ n more" lines.
 */
export function fieldWindow(heights: number[], focus: number, room: number): { first: number; last: number } {
  const total = heights.reduce((a, b) => a + b, 0);
  if (total <= room) return { first: 0, last: heights.length };
  const at = Math.max(0, Math.min(focus, heights.length - 1));
  const inside = room - 2;
  let first = at;
  let last = at + 1;
  let used = heights[at] ?? 0;
  for (let grew = true; grew;) {
    grew = false;
    if (last < heights.length && used + heights[last] <= inside) {
      used += heights[last++];
      grew = true;
    }
    if (first > 0 && used + heights[first - 1] <= inside) {
      used += heights[--first];
      grew = true;
    }
  }
  return { first, last };
}
