import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import FrameOutput from '../../src/dashboard/terminal/ink-frame/output.js';

// Ink's own frame builder, read from its file (Ink exports only its index).
const inkBuild = dirname(createRequire(import.meta.url).resolve('ink'));
const { default: InkOutput } = (await import(pathToFileURL(join(inkBuild, 'output.js')).href)) as {
  default: new (o: { width: number; height: number }) => FrameLike;
};

interface FrameLike {
  write(x: number, y: number, text: string, o: { transformers: ((s: string, i: number) => string)[] }): void;
  clip(c: { x1?: number; x2?: number; y1?: number; y2?: number }): void;
  unclip(): void;
  get(): { output: string; height: number };
}

type Op =
  | { type: 'write'; x: number; y: number; text: string; transformers: number[] }
  | { type: 'clip'; clip: { x1?: number; x2?: number; y1?: number; y2?: number } }
  | { type: 'unclip' };

const TRANSFORMERS = [
  (s: string) => `\x1b[1m${s}\x1b[22m`,
  (s: string, i: number) => (i === 0 ? s.toUpperCase() : s),
  (s: string) => `\x1b[7m${s}\x1b[27m`,
];

function draw(Impl: new (o: { width: number; height: number }) => FrameLike, width: number, height: number, ops: Op[]) {
  const out = new Impl({ width, height });
  for (const op of ops) {
    if (op.type === 'write')
      out.write(op.x, op.y, op.text, { transformers: op.transformers.map((t) => TRANSFORMERS[t]) });
    else if (op.type === 'clip') out.clip(op.clip);
    else out.unclip();
  }
  return out.get();
}

// what a dashboard frame is made of: ASCII, marks, wide characters, emoji, combining marks, colours
const piece = fc.constantFrom(
  'a',
  'Z',
  ' ',
  '9',
  '›',
  '…',
  '–',
  '✓',
  '✕',
  '漢',
  '字',
  '😀',
  'e\u0301',
  '\x1b[31m',
  '\x1b[39m',
  '\x1b[1m',
  '\x1b[22m',
  '\x1b[7m',
  '\x1b[0m',
  '\x1b[38;5;208m',
  '\t',
);
// the builder's fast path takes lines of one-column characters and SGR sequences only
const simplePiece = fc.constantFrom(
  'a',
  ' ',
  '~',
  'é',
  '–',
  '…',
  '›',
  '●',
  '▲',
  '✓',
  '─',
  '\x1b[31m',
  '\x1b[39m',
  '\x1b[1m',
  '\x1b[22m',
  '\x1b[2m',
  '\x1b[7m',
  '\x1b[27m',
  '\x1b[0m',
  '\x1b[m',
  '\x1b[1;31m',
  '\x1b[38;5;208m',
  '\x1b[38;2;1;2;3m',
  '\x1b[4m',
  '\x1b[24m',
);
const line = fc
  .oneof(fc.array(piece, { maxLength: 30 }), fc.array(simplePiece, { maxLength: 40 }))
  .map((p) => p.join(''));
const text = fc.array(line, { minLength: 1, maxLength: 4 }).map((l) => l.join('\n'));
const coordinate = (max: number) => fc.integer({ min: -3, max: max + 3 });
const op = (w: number, h: number): fc.Arbitrary<Op> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        type: fc.constant('write' as const),
        x: coordinate(w),
        y: coordinate(h),
        text,
        transformers: fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('clip' as const),
        clip: fc.record({
          x1: fc.option(coordinate(w), { nil: undefined }),
          x2: fc.option(coordinate(w), { nil: undefined }),
          y1: fc.option(coordinate(h), { nil: undefined }),
          y2: fc.option(coordinate(h), { nil: undefined }),
        }),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ type: 'unclip' as const }) },
  );
const frame = fc
  .record({ width: fc.integer({ min: 1, max: 40 }), height: fc.integer({ min: 1, max: 8 }) })
  .chain(({ width, height }) =>
    fc.record({
      width: fc.constant(width),
      height: fc.constant(height),
      ops: fc.array(op(width, height), { maxLength: 12 }),
    }),
  );

describe("the dashboard's Ink frame builder", () => {
  it("builds every frame exactly as Ink's own Output does", () => {
    fc.assert(
      fc.property(frame, ({ width, height, ops }) => {
        expect(draw(FrameOutput, width, height, ops)).toEqual(draw(InkOutput, width, height, ops));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same frames when rows repeat from earlier frames (kept rows are not stale)', () => {
    fc.assert(
      fc.property(frame, fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), ({ width, height, ops }, drops) => {
        // a sequence of frames that each drop or move one write of the first: most rows repeat
        const frames = [
          ops,
          ...drops.map((d, n) =>
            ops
              .filter((_, i) => i !== d % Math.max(1, ops.length))
              .map((o) => (o.type === 'write' && n % 2 ? { ...o, y: o.y + 1 } : o)),
          ),
        ];
        for (const f of [...frames, ...frames.reverse()])
          expect(draw(FrameOutput, width, height, f)).toEqual(draw(InkOutput, width, height, f));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same frames for table-like rows: one simple line a row from the left edge, styled or trailing spaces included', () => {
    const simpleLine = fc
      .array(fc.oneof(simplePiece, fc.constant(' '), fc.constant('\x1b[7m  ')), { maxLength: 50 })
      .map((p) => p.join(''));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.array(simpleLine, { minLength: 1, maxLength: 6 }),
        (width, lines) => {
          const ops: Op[] = lines.map((text, y) => ({ type: 'write', x: 0, y, text, transformers: y % 2 ? [0] : [] }));
          expect(draw(FrameOutput, width, lines.length, ops)).toEqual(draw(InkOutput, width, lines.length, ops));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a table moving its cursor up and down gives the frames Ink gives', () => {
    const rows = Array.from(
      { length: 30 },
      (_, i) => `  ${String(i).padStart(3)}  entry ${i} ✓ – gateway.key.create …`,
    );
    const frameWith = (cursor: number): Op[] =>
      rows.map((r, i) => ({
        type: 'write',
        x: 0,
        y: i,
        text: i === cursor ? `\x1b[7m› ${r.slice(2)}\x1b[27m` : r,
        transformers: [],
      }));
    for (const cursor of [0, 1, 2, 1, 0, 5, 29])
      expect(draw(FrameOutput, 60, 30, frameWith(cursor))).toEqual(draw(InkOutput, 60, 30, frameWith(cursor)));
  });
});
