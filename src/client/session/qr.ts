import QRCode from 'qrcode';

export interface QrOptions {
  /**
   * true: black modules on a white background set with ANSI colours (right on any terminal).
   * false: no escape codes; light modules drawn as blocks, which reads right on the usual dark
   * terminal background (most phone scanners also read the inverse).
   */
  color?: boolean;
}

/** Two rows of modules per text line, so a typical verification URL fits an 80x24 terminal. */
const QUIET_ZONE = 2;

/** The QR code of `text` as lines of half-block characters (all the same width). */
export function renderQr(text: string, opts: QrOptions = {}): string[] {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'L' });
  const size = modules.size;
  const dark = (row: number, col: number) =>
    row >= 0 && col >= 0 && row < size && col < size && Boolean(modules.get(row, col));
  // With colours a block is a dark module; without, a block is a light one (the terminal's
  // foreground on its dark background).
  const inked = (row: number, col: number) => (opts.color ? dark(row, col) : !dark(row, col));
  const lines: string[] = [];
  for (let row = -QUIET_ZONE; row < size + QUIET_ZONE; row += 2) {
    let line = '';
    for (let col = -QUIET_ZONE; col < size + QUIET_ZONE; col++) {
      const top = inked(row, col);
      const bottom = row + 1 < size + QUIET_ZONE && inked(row + 1, col);
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    lines.push(opts.color ? `\x1b[30;47m${line}\x1b[0m` : line);
  }
  return lines;
}
