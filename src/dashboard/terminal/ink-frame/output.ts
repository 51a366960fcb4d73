import sliceAnsi from 'slice-ansi';
import {
  diffAnsiCodes,
  ansiCodesToString,
  reduceAnsiCodesIncremental,
  styledCharsFromTokens,
  tokenize,
  type AnsiCode,
  type StyledChar,
} from '@alcalzone/ansi-tokenize';
import { BoundedMap } from '../../../text/bounded-map.js';
import { displayWidth, NARROW_CLASS } from '../../../text/display-width.js';
import widestLine from './widest-line.js';
import { isKeptOut } from './keep-out.js';

/**
 * Ink's frame builder (ink/build/output.js, Ink 6.8) with its result kept between frames.
 *
 * Ink builds every frame whole: each line of every text is tokenized into styled characters, each
 * character measured, placed in a width x height grid, and each grid row turned back into a
 * string. Its caches live for one frame. On the dashboard one key changes two or three rows of
 * forty, so this version groups what is written by row and keeps each row's finished string,
 * keyed by exactly what was written to it (x, text after transformers) and the frame width: an
 * unchanged row costs a lookup. A row that changed is built the way Ink builds it, with a fast
 * path for lines of one-column characters and SGR codes, and remembered widths. The output is
 * identical to Ink's, character for character (test/widgets/ink-frame-output.test.ts compares the two
 * on random frames).
 *
 * It replaces Ink's module in the bundle (scripts/ink-frame.mjs, used by scripts/build.mjs and
 * by the benchmarks' module hook); the interface is Ink's: write, clip, unclip, get.
 */

type Transformer = (s: string, index: number) => string;
interface Clip {
  x1?: number;
  x2?: number;
  y1?: number;
  y2?: number;
}
type Operation =
  | { type: 'write'; x: number; y: number; text: string; transformers: Transformer[] }
  | { type: 'clip'; clip: Clip }
  | { type: 'unclip' };

/** What is written to one row: each piece is a line placed at a column. */
interface Piece {
  x: number;
  line: string;
  keptOut?: boolean;
}

// Bounded so that a dashboard showing new rows all day does not grow (a frame has ~40 rows; all
// twelve screens ~500): finished rows are strings, a few hundred bytes each. Styled characters
// are objects, ~50 bytes a character, so only lines that take ansi-tokenize's slow path are
// kept (docs/dependency-edits.md, Ink's frame builder).
const finishedRows = new BoundedMap<string, string>(1500);
const styledLines = new BoundedMap<string, StyledChar[]>(300);
const widths = new BoundedMap<string, number>(5000);

function widthOf(text: string): number {
  let w = widths.get(text);
  if (w === undefined) {
    w = displayWidth(text);
    widths.set(text, w);
  }
  return w;
}

function styledCharsOf(line: string): StyledChar[] {
  if (SIMPLE_LINE.test(line)) return simpleStyledChars(line);
  let chars = styledLines.get(line);
  if (chars === undefined) {
    chars = styledCharsFromTokens(tokenize(line));
    styledLines.set(line, chars);
  }
  return chars;
}

/**
 * A line of one-column, one-code-point characters (displayWidth's set) and SGR sequences, which
 * is nearly every line of the dashboard. ansi-tokenize segments any line into graphemes and copies
 * the style list for every character; here each character is one UTF-16 unit, the sequences are
 * tokenized by ansi-tokenize itself (remembered, there are few), and characters share their style
 * list until a sequence changes it. Same result, a fraction of the time and garbage.
 */
const SIMPLE_LINE = new RegExp(`^(?:[${NARROW_CLASS}]|\u001B\\[[0-9;]*m)*$`);
const sgrTokens = new BoundedMap<string, AnsiCode[]>(500);

function sgrCodes(sequence: string): AnsiCode[] {
  let codes = sgrTokens.get(sequence);
  if (codes === undefined) {
    codes = tokenize(sequence) as AnsiCode[];
    sgrTokens.set(sequence, codes);
  }
  return codes;
}

function simpleStyledChars(line: string): StyledChar[] {
  const chars: StyledChar[] = [];
  let styles: AnsiCode[] = NO_STYLES;
  for (let i = 0; i < line.length;) {
    if (line.charCodeAt(i) === 0x1b) {
      const end = line.indexOf('m', i) + 1;
      const codes = sgrCodes(line.slice(i, end));
      for (const code of codes) styles = reduceAnsiCodesIncremental(styles, [code]);
      i = end;
    } else {
      chars.push({ type: 'char', value: line[i], fullWidth: false, styles });
      i++;
    }
  }
  return chars;
}

const NO_STYLES: AnsiCode[] = [];
const blank = (): StyledChar => ({ type: 'char', value: ' ', fullWidth: false, styles: NO_STYLES });

/**
 * ansi-tokenize's styledCharsToString, skipping the style diff between neighbours that share one
 * style list (the diff of a list with itself is empty).
 */
function styledCharsToString(chars: StyledChar[]): string {
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i];
    if (i === 0) out += ansiCodesToString(char.styles);
    else if (chars[i - 1].styles !== char.styles)
      out += ansiCodesToString(diffAnsiCodes(chars[i - 1].styles, char.styles));
    out += char.value;
    if (i === chars.length - 1) out += ansiCodesToString(diffAnsiCodes(char.styles, []));
  }
  return out;
}

/**
 * styledCharsToString(simpleStyledChars(line)) for a simple line, without a character object each:
 * the text between two SGR sequences shares one style list, so it is copied as one run. Undefined
 * when the line has more than `width` characters.
 */
function simpleLineString(line: string, width: number): string | undefined {
  let out = '';
  let styles: AnsiCode[] = NO_STYLES;
  let last: AnsiCode[] | undefined; // the style list of the last character written
  let count = 0;
  for (let i = 0; i < line.length;) {
    if (line.charCodeAt(i) === 0x1b) {
      const end = line.indexOf('m', i) + 1;
      for (const code of sgrCodes(line.slice(i, end))) styles = reduceAnsiCodesIncremental(styles, [code]);
      i = end;
      continue;
    }
    let end = line.indexOf('\u001B', i);
    if (end < 0) end = line.length;
    count += end - i;
    if (count > width) return undefined;
    out +=
      last === undefined
        ? ansiCodesToString(styles)
        : last !== styles
          ? ansiCodesToString(diffAnsiCodes(last, styles))
          : '';
    out += line.slice(i, end);
    last = styles;
    i = end;
  }
  return last === undefined ? out : out + ansiCodesToString(diffAnsiCodes(last, []));
}

/** One row as Ink builds it: blanks, then each piece's characters placed in order. */
function buildRow(width: number, pieces: Piece[]): string {
  // One simple line from the left edge (a table row): the blanks after it would only be trimmed
  // off again, after the same closing codes.
  if (pieces.length === 1 && pieces[0].x === 0 && SIMPLE_LINE.test(pieces[0].line)) {
    const built = simpleLineString(pieces[0].line, width);
    if (built !== undefined) return built.trimEnd();
  }
  const row: StyledChar[] = [];
  for (let x = 0; x < width; x++) row.push(blank());
  for (const { x, line } of pieces) {
    let offsetX = x;
    for (const character of styledCharsOf(line)) {
      row[offsetX] = character;
      const characterWidth = Math.max(1, widthOf(character.value));
      for (let i = 1; i < characterWidth; i++)
        row[offsetX + i] = { type: 'char', value: '', fullWidth: false, styles: character.styles };
      offsetX += characterWidth;
    }
  }
  // holes (a piece starting past the end) are skipped, as Ink's filter does
  return styledCharsToString(row.filter((c) => c !== undefined)).trimEnd();
}

function rowKey(width: number, pieces: Piece[]): string {
  let key = `${width}`;
  for (const p of pieces) key += `|${p.x}:${p.line.length}:${p.line}`;
  return key;
}

export default class Output {
  width: number;
  height: number;
  private readonly operations: Operation[] = [];

  constructor(options: { width: number; height: number }) {
    this.width = options.width;
    this.height = options.height;
  }

  write(x: number, y: number, text: string, options: { transformers: Transformer[] }): void {
    if (!text) return;
    this.operations.push({ type: 'write', x, y, text, transformers: options.transformers });
  }

  clip(clip: Clip): void {
    this.operations.push({ type: 'clip', clip });
  }

  unclip(): void {
    this.operations.push({ type: 'unclip' });
  }

  get(): { output: string; height: number } {
    const rows: Piece[][] = [];
    for (let y = 0; y < this.height; y++) rows.push([]);
    const clips: Clip[] = [];
    for (const operation of this.operations) {
      if (operation.type === 'clip') clips.push(operation.clip);
      if (operation.type === 'unclip') clips.pop();
      if (operation.type !== 'write') continue;
      // Clipping and transformers exactly as Ink applies them (ink/build/output.js).
      const { text, transformers } = operation;
      let { x, y } = operation;
      let lines = text.split('\n');
      const clip = clips.at(-1);
      if (clip) {
        const clipHorizontally = typeof clip.x1 === 'number' && typeof clip.x2 === 'number';
        const clipVertically = typeof clip.y1 === 'number' && typeof clip.y2 === 'number';
        if (clipHorizontally) {
          const width = widestLine(text);
          if (x + width < clip.x1! || x > clip.x2!) continue;
        }
        if (clipVertically) {
          if (y + lines.length < clip.y1! || y > clip.y2!) continue;
        }
        if (clipHorizontally) {
          lines = lines.map((line) => {
            const from = x < clip.x1! ? clip.x1! - x : 0;
            const width = widthOf(line);
            const to = x + width > clip.x2! ? clip.x2! - x : width;
            return sliceAnsi(line, from, to);
          });
          if (x < clip.x1!) x = clip.x1!;
        }
        if (clipVertically) {
          const from = y < clip.y1! ? clip.y1! - y : 0;
          const to = y + lines.length > clip.y2! ? clip.y2! - y : lines.length;
          lines = lines.slice(from, to);
          if (y < clip.y1!) y = clip.y1!;
        }
      }
      let offsetY = 0;
      for (const [index, text] of lines.entries()) {
        let line = text;
        const row = rows[y + offsetY];
        // Ink skips a line outside the frame without moving on to the next row
        if (!row) continue;
        let keptOut = false;
        for (const transformer of transformers) {
          line = transformer(line, index);
          keptOut ||= isKeptOut(transformer);
        }
        row.push(keptOut ? { x, line, keptOut } : { x, line });
        offsetY++;
      }
    }
    const output = rows
      .map((pieces) => {
        // a line revealing a secret (keepOut) is drawn and forgotten
        if (pieces.some((p) => p.keptOut)) return buildRow(this.width, pieces);
        const key = rowKey(this.width, pieces);
        let finished = finishedRows.get(key);
        if (finished === undefined) {
          finished = buildRow(this.width, pieces);
          finishedRows.set(key, finished);
        }
        return finished;
      })
      .join('\n');
    return { output, height: rows.length };
  }
}
