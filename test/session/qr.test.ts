import { describe, expect, it } from 'vitest';
import QRCode from 'qrcode';
import { renderQr } from '../../src/client/session/index.js';

const URLS = [
  'http://127.0.0.1:41234/device?user_code=WSSM-VSHD',
  'https://login.example-corp.com/activate?user_code=WSSM-VSHD',
  'https://login.microsoftonline.com/common/oauth2/deviceauth?user_code=ABCD-EFGH',
];
const strip = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '');

/** Reads the half-block drawing back into rows of modules (true = drawn). */
function pixels(lines: string[]): boolean[][] {
  const rows: boolean[][] = [];
  for (const line of lines.map(strip)) {
    const chars = [...line];
    rows.push(chars.map((c) => c === '█' || c === '▀'));
    rows.push(chars.map((c) => c === '█' || c === '▄'));
  }
  return rows;
}

describe('the QR code drawn in the terminal', () => {
  for (const color of [true, false]) {
    it(`draws exactly the modules of the QR code, with a quiet zone (${color ? 'black on white via ANSI' : 'no escape codes, light modules drawn'})`, () => {
      for (const url of URLS) {
        const lines = renderQr(url, { color });
        const { modules } = QRCode.create(url, { errorCorrectionLevel: 'L' });
        const drawn = pixels(lines);
        const quiet = 2;
        for (let r = 0; r < modules.size; r++) {
          for (let c = 0; c < modules.size; c++) {
            const dark = Boolean(modules.get(r, c));
            expect(drawn[r + quiet][c + quiet], `${url} ${r},${c}`).toBe(color ? dark : !dark);
          }
        }
        // the quiet zone is light all round: blank with colours, drawn without
        for (const r of [0, 1, quiet + modules.size, quiet + modules.size + 1].filter(
          (r) => r < modules.size + 2 * quiet,
        )) {
          expect(
            drawn[r].every((px) => px === !color),
            `${url} quiet row ${r}`,
          ).toBe(true);
        }
        if (color) for (const line of lines) expect(line).toMatch(/^\x1b\[30;47m[ ▀▄█]+\x1b\[0m$/);
        else for (const line of lines) expect(line).toMatch(/^[ ▀▄█]+$/);
      }
    });
  }

  it('fits a typical verification URL into 80 columns and, with four lines of text, 24 rows', () => {
    for (const url of URLS) {
      const lines = renderQr(url, { color: true });
      expect(new Set(lines.map((l) => [...strip(l)].length)).size).toBe(1);
      expect([...strip(lines[0])].length).toBeLessThanOrEqual(80);
      expect(lines.length + 4, url).toBeLessThanOrEqual(24);
    }
  });
});
