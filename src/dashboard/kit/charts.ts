/** Text charts: they read the same with or without colour. */

const SPARKS = '▁▂▃▄▅▆▇█';
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** One character per value, scaled to the largest (or `max`). */
export function sparkline(values: number[], max = Math.max(0, ...values)): string {
  if (values.length === 0) return '';
  return values
    .map((v) => {
      if (!(v > 0) || !(max > 0)) return ' ';
      return SPARKS[Math.min(SPARKS.length - 1, Math.round((v / max) * (SPARKS.length - 1)))];
    })
    .join('');
}

/** A horizontal bar of `width` cells for value/max, in eighths. */
export function bar(value: number, max: number, width: number): string {
  if (!(max > 0) || !(value > 0) || width <= 0) return '';
  const cells = Math.min(width, (value / max) * width);
  const full = Math.floor(cells);
  return '█'.repeat(full) + EIGHTHS[Math.floor((cells - full) * 8)];
}
