import { describe, expect, it } from 'vitest';
import React from 'react';
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import fc from 'fast-check';
import { sanitize, sanitizeDeep } from '../../src/text/sanitize.js';
import { Table } from '../../src/dashboard/widgets/Table.js';

const ESC = '\x1b';
// Anything a terminal would act on: C0 (incl. BEL, BS, CR, LF, TAB), DEL, C1, and the
// bidi/format characters that reorder or hide text.
const DANGEROUS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u00ad\u061c]/u;

describe('sanitize', () => {
  it.each([
    ['ESC alone', `a${ESC}b`, 'a'],
    ['CSI colour', `${ESC}[31mred${ESC}[0m`, 'red'],
    ['CSI cursor moves and clear screen', `x${ESC}[2J${ESC}[H${ESC}[10;20Hy`, 'xy'],
    ['8-bit CSI', `x\u009b31my`, 'xy'],
    ['OSC 52 clipboard write (BEL)', `pre${ESC}]52;c;ZXZpbA==\x07post`, 'prepost'],
    ['OSC 52 clipboard write (ST)', `pre${ESC}]52;c;ZXZpbA==${ESC}\\post`, 'prepost'],
    ['OSC 8 hyperlink', `${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\`, 'click'],
    ['OSC title set', `${ESC}]0;pwned\x07name`, 'name'],
    ['unterminated OSC', `ok${ESC}]52;c;AAAA`, 'ok'],
    ['DCS string', `a${ESC}Pq#0;2;0;0;0${ESC}\\b`, 'ab'],
    ['BEL', 'ding\x07dong', 'dingdong'],
    ['backspace overwrite', 'safe\b\b\b\bEVIL', 'safeEVIL'],
    ['CR overwrite', 'innocent\rmalicious', 'innocent malicious'],
    ['newline and tab', 'two\nlines\tand tab', 'two lines and tab'],
    ['DEL and C1 NEL', 'a\u007fb\u0085c', 'ab c'],
    ['RLO bidi override', 'invoice\u202Egpj.exe', 'invoicegpj.exe'],
    ['LRI/PDI isolates', '\u2066abc\u2069', 'abc'],
    ['zero-width space and joiner', 'ad\u200Bmin\u200D', 'admin'],
    ['BOM and soft hyphen', '\uFEFFpass\u00ADword', 'password'],
    ['Arabic letter mark', 'x\u061Cy', 'xy'],
  ])('%s', (_label, input, expected) => {
    const out = sanitize(input);
    expect(out).toBe(expected);
    expect(out).not.toMatch(DANGEROUS);
  });

  it('keeps ordinary and wide text', () => {
    expect(sanitize('Grüße 東京 👍 naïve')).toBe('Grüße 東京 👍 naïve');
  });

  it('caps very long strings', () => {
    const out = sanitize('x'.repeat(5000), 100);
    expect([...out]).toHaveLength(100);
    expect(out.endsWith('…')).toBe(true);
  });

  it('cleans every string and key of a nested value', () => {
    const v = sanitizeDeep({ [`k${ESC}[1m`]: [`v${ESC}]52;c;QQ==\x07`, { n: 1, s: 'a\rb' }] });
    expect(v).toEqual({ k: ['v', { n: 1, s: 'a b' }] });
  });

  it('never lets a control character or escape through (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const out = sanitize(s);
        expect(out).not.toMatch(DANGEROUS);
      }),
      { numRuns: 100 },
    );
  });

  it('removes or replaces every control, format, separator and lone surrogate code point in ordinary text', () => {
    const unsafe = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;
    const leaked: number[] = [];
    const changed: number[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      const out = sanitize(`ok ${ch} é ●`);
      if (unsafe.test(out)) leaked.push(c);
      else if (!unsafe.test(ch) && out !== `ok ${ch} é ●`) changed.push(c);
    }
    expect(leaked).toEqual([]);
    // the rest shows as it came
    expect(changed).toEqual([]);
  });

  it('keeps printable ASCII as it is, and still catches one control character in it (property)', () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 80,
    });
    const control = fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f)).map((c) => String.fromCharCode(c));
    fc.assert(
      fc.property(printable, printable, control, (a, b, c) => {
        expect(sanitize(a + b)).toBe(a + b);
        const out = sanitize(`${a}${c}${b}`);
        expect(out).not.toMatch(DANGEROUS);
        expect(out.length).toBeLessThanOrEqual(a.length + b.length + 1);
      }),
      { numRuns: 300 },
    );
  });

  it('a hostile server string renders through Ink without any escape sequence', () => {
    const hostile = `name${ESC}]52;c;ZXZpbA==\x07${ESC}[2J\u202Eevil\rX`;
    const { lastFrame, unmount } = render(<Text>{sanitize(hostile)}</Text>);
    expect(lastFrame()).toBe('nameevil X');
    unmount();
    const table = render(
      <Table
        columns={[{ header: 'Name', value: (r: { n: string }) => r.n }]}
        rows={[{ n: hostile }]}
        cursor={0}
        scroll={0}
        height={5}
        width={60}
      />,
    );
    expect(table.lastFrame()).toContain('nameevil X');
    expect(table.lastFrame()).not.toContain(ESC);
    table.unmount();
  });
});
