import { describe, expect, it } from 'vitest';
import React, { useState } from 'react';
import { Box, useInput } from 'ink';
import { render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { Table, visibleRows } from '../../src/dashboard/widgets/Table.js';
import { scrollFor, layoutColumns } from '../../src/dashboard/kit/table-layout.js';
import type { Column } from '../../src/dashboard/kit/screen-api.js';
import { afterKey } from '../helpers/ink.js';
import { until } from '../helpers/until.js';

interface Row {
  id: string;
  name: string;
  n: number;
}
const rows: Row[] = Array.from({ length: 1000 }, (_, i) => ({
  id: `row-${String(i).padStart(4, '0')}`,
  name: `name ${i}`,
  n: i,
}));
const columns: Column<Row>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'Name', value: (r) => r.name, grow: true },
  { header: 'N', value: (r) => r.n, align: 'right', width: 6 },
];

/** A table with cursor keys, as the shell wires it. */
function Navigable({ height, data = rows, cols = columns }: { height: number; data?: Row[]; cols?: Column<Row>[] }) {
  const [pos, setPos] = useState({ cursor: 0, scroll: 0 });
  const page = visibleRows(height);
  useInput((input, key) =>
    setPos(({ cursor, scroll }) => {
      let c = cursor;
      if (key.downArrow || input === 'j') c++;
      if (key.upArrow || input === 'k') c--;
      if (key.pageDown) c += page;
      if (key.pageUp) c -= page;
      if (input === 'G') c = data.length - 1;
      if (input === 'g') c = 0;
      c = Math.max(0, Math.min(data.length - 1, c));
      return { cursor: c, scroll: scrollFor(c, scroll, page, data.length) };
    }),
  );
  return <Table columns={cols} rows={data} cursor={pos.cursor} scroll={pos.scroll} height={height} width={60} />;
}

/** Waits for the frame to satisfy `ok` (renders are asynchronous; the machine may be busy). */
const frameSays = (ok: () => boolean, what: string) => until(what, ok, 3000);
const dataLines = (frame: string) => frame.split('\n').filter((l) => /row-\d{4}/.test(l));

describe('Table', () => {
  it('renders only the visible window of a long list', () => {
    const { lastFrame, unmount } = render(<Navigable height={10} />);
    const frame = lastFrame()!;
    expect(frame.split('\n')).toHaveLength(10);
    expect(dataLines(frame)).toHaveLength(8);
    expect(frame).toContain('row-0000');
    expect(frame).toContain('row-0007');
    expect(frame).not.toContain('row-0008');
    expect(frame).toContain('row 1 of 1000');
    unmount();
  });

  it('moves the cursor and scrolls the window with it', async () => {
    const { lastFrame, stdin, unmount } = render(<Navigable height={10} />);
    const selected = () => dataLines(lastFrame()!).find((l) => l.startsWith('›'))!;
    expect(selected()).toContain('row-0000');
    for (let i = 0; i < 9; i++) {
      stdin.write('j');
      await afterKey();
    }
    await frameSays(() => selected().includes('row-0009'), 'row 9');
    expect(lastFrame()).not.toContain('row-0000'); // scrolled past the top
    expect(dataLines(lastFrame()!)).toHaveLength(8);
    stdin.write('\x1b[6~'); // PgDn
    await frameSays(() => selected().includes('row-0017'), 'row 17');
    stdin.write('G');
    await frameSays(() => selected().includes('row-0999'), 'the last row');
    expect(lastFrame()).toContain('row 1000 of 1000');
    stdin.write('k');
    await frameSays(() => selected().includes('row-0998'), 'row 998');
    stdin.write('g');
    await frameSays(() => selected().includes('row-0000'), 'the first row');
    // exactly one row is marked, and the mark is text, not colour alone
    expect(
      lastFrame()!
        .split('\n')
        .filter((l) => l.startsWith('›')),
    ).toHaveLength(1);
    unmount();
  });

  it('sizes columns by display width and truncates with …', () => {
    const wide: Row[] = [
      { id: 'row-0001', name: '東京都の非常に長いコネクタ名前がここに続きます東京都の非常に長い', n: 1 },
      { id: 'row-0002', name: 'plain', n: 22 },
    ];
    const { lastFrame, unmount } = render(
      <Table columns={columns} rows={wide} cursor={1} scroll={0} height={6} width={50} />,
    );
    const lines = lastFrame()!.split('\n').slice(0, 3);
    expect(lines[1]).toContain('…');
    // every row, wide characters included, occupies exactly the table width
    for (const l of lines) expect(stringWidth(l)).toBe(50);
    unmount();
  });

  it("marks the sorted column's header with its direction, widening it rather than cutting the mark", () => {
    const few = rows.slice(0, 3);
    const header = (sort: { column: string; descending: boolean } | null, cols = columns, width = 60) => {
      const { lastFrame, unmount } = render(
        <Table columns={cols} rows={few} cursor={0} scroll={0} height={6} width={width} sort={sort} />,
      );
      const line = lastFrame()!.split('\n')[0];
      unmount();
      return line;
    };
    expect(header(null)).not.toMatch(/[▲▼]/);
    expect(header({ column: 'ID', descending: false })).toMatch(/^ {2}ID ▲\s+Name\s+N$/);
    expect(header({ column: 'Name', descending: true })).toMatch(/^ {2}ID\s+Name ▼\s+N$/);
    // a fixed width too narrow for the header and the mark: the header is cut, the mark stays
    const narrow: Column<Row>[] = [{ header: 'Last used', value: (r) => r.n, width: 7 }, columns[0]];
    expect(header({ column: 'Last used', descending: true }, narrow)).toMatch(/^ {2}Last… ▼ {2}ID/);
    // a column that is not there marks nothing
    expect(header({ column: 'gone', descending: true })).not.toMatch(/[▲▼]/);
  });

  it('shows what an empty list means', () => {
    const { lastFrame, unmount } = render(
      <Table
        columns={columns}
        rows={[]}
        cursor={0}
        scroll={0}
        height={5}
        width={50}
        empty="No connector is configured."
      />,
    );
    expect(lastFrame()).toContain('No connector is configured.');
    unmount();
  });

  it('builds the pages on either side while waiting, so PgDn finds its rows ready', async () => {
    // each row built, and how many frames had been drawn then
    const built: { n: number; frames: number }[] = [];
    let frames = () => 0;
    const counted: Column<Row>[] = [
      { header: 'ID', value: (r) => (built.push({ n: r.n, frames: frames() }), r.id) },
      ...columns.slice(1),
    ];
    const many: Row[] = Array.from({ length: 1500 }, (_, i) => ({
      id: `row-${String(i).padStart(4, '0')}`,
      name: `name ${i}`,
      n: i,
    }));
    const { lastFrame, stdin, stdout, unmount } = render(<Navigable height={9} cols={counted} data={many} />);
    frames = () => stdout.frames.length;
    const builtAfter = (frame: number) => built.filter((b) => b.frames >= frame).map((b) => b.n);
    // the columns are measured on the first 500 rows and the window (0-6) built for the first
    // frame; after it, the next page (nothing before the first row)
    await frameSays(() => builtAfter(1).includes(13), 'the next page built ahead');
    // kept: a short time for the builder to go on if it wrongly did; it has no event that says it stopped
    await new Promise((r) => setTimeout(r, 20));
    expect(builtAfter(1).sort((a, b) => a - b)).toEqual([7, 8, 9, 10, 11, 12, 13]);
    expect(lastFrame()).not.toContain('row-0007');
    // then page by page to the end, more lines than the table keeps (1,000): it empties its store
    // between keys, not while a key is drawn
    for (let press = 1; press * 7 < many.length; press++) {
      const before = frames();
      const from = built.length;
      stdin.write('\x1b[6~');
      await frameSays(() => lastFrame()!.includes(`row ${press * 7 + 1} of 1500`), `page ${press + 1}`);
      const window = dataLines(lastFrame()!).map((l) => Number(/row-(\d{4})/.exec(l)![1]));
      expect(window).toEqual(Array.from({ length: 7 }, (_, i) => press * 7 - 6 + i));
      // none of the rows now on screen was built while this frame was drawn: they were ready
      expect(
        built
          .slice(from)
          .filter((b) => b.frames === before)
          .map((b) => b.n),
      ).toEqual([]);
      await frameSays(
        () => builtAfter(before + 1).includes(Math.min(many.length - 1, window[6] + 7)),
        'the page after it built ahead',
      );
    }
    unmount();
  });

  it('cuts each row, not the whole window, when fixed columns are wider than the table', () => {
    const fixed: Column<Row>[] = [{ header: 'ID', value: (r) => `${r.id} ${'x'.repeat(30)}`, width: 40 }];
    const { lastFrame, unmount } = render(
      <Box width={20}>
        <Table columns={fixed} rows={rows} cursor={0} scroll={0} height={6} width={20} />
      </Box>,
    );
    const data = dataLines(lastFrame()!);
    expect(data.map((l) => l.slice(2, 10))).toEqual(['row-0000', 'row-0001', 'row-0002', 'row-0003']);
    for (const l of data) expect(stringWidth(l)).toBe(20);
    unmount();
  });

  it('drops columns that cannot fit rather than overflowing', () => {
    const many: Column<Row>[] = Array.from({ length: 12 }, (_, i) => ({
      header: `Column${i}`,
      value: (r: Row) => `${r.name}-${i}`,
      minWidth: 8,
    }));
    const { widths } = layoutColumns(many, rows.slice(0, 5), 60);
    expect(widths.length).toBeLessThan(12);
    expect(widths.reduce((a, b) => a + b, 0) + 2 + 2 * (widths.length - 1)).toBeLessThanOrEqual(60);
  });

  it('narrows a holdsWidth column last, and an id column to the prefix that tells its rows apart, uncut', () => {
    const ids = ['run_k3x9q2ma7tz', 'run_k3x8b1pq0wd', 'run_p0z5n6cc2yy'].map((id, n) => ({
      id,
      name: 'budget_exceeded',
      n,
    }));
    const cols: Column<Row>[] = [
      { header: 'Tool', value: () => 'extract_clauses' },
      { header: 'Error', value: (r) => r.name, holdsWidth: true },
      { header: 'Run', value: (r) => r.id, uniquePrefix: 4, givesWay: true, grow: true },
    ];
    // 15 each, 51 with the gutter and separators; at 40 the run id gives way first, to the 8
    // characters run_k3x9… and run_k3x8… need, then Tool; the error code keeps its 15
    expect(layoutColumns(cols, ids, 40).widths).toEqual([11, 15, 8]);
    const { lastFrame, unmount } = render(
      <Table columns={cols} rows={ids} cursor={0} scroll={0} height={6} width={40} />,
    );
    const lines = lastFrame()!
      .split('\n')
      .filter((l) => l.includes('budget_exceeded'));
    expect(lines.map((l) => l.trimEnd().split(/\s+/).slice(-2))).toEqual([
      ['budget_exceeded', 'run_k3x9'],
      ['budget_exceeded', 'run_k3x8'],
      ['budget_exceeded', 'run_p0z5'],
    ]);
    expect(lines[1]).toContain('extract_cl…');
    unmount();
  });

  it('of two columns that give way, narrows the rightmost first (a chart whose header is wider than its marks, before a cost)', () => {
    const one = [{ id: 'k', name: '0.00 EUR +21 unpriced', n: 0 }];
    const cols: Column<Row>[] = [
      { header: 'Key', value: () => 'intranet-search' },
      { header: 'Cost', value: (r) => r.name, givesWay: true, minWidth: 10 },
      { header: 'Requests (× refused), oldest → now', value: () => '▃▂▂▁▁▁▁▁▁▁▁▂', givesWay: true, minWidth: 8 },
    ];
    // 15 + 21 + 34 with the gutter and separators is 76: at 70 the chart's spare header room goes, not the cost's words
    expect(layoutColumns(cols, one, 70).widths).toEqual([15, 21, 28]);
  });
});

describe('kept columns', () => {
  // a keys-like list: a name, then columns of less interest, and the two the screen is read for at the end
  const keys = [
    { id: 'agk_1', name: 'data-science-sandbox', n: 1 },
    { id: 'agk_2', name: 'it-helpdesk-bot', n: 120 },
  ];
  type K = (typeof keys)[number];
  const cols: Column<K>[] = [
    { header: 'Name', value: (k) => k.name, grow: true, minWidth: 15, maxWidth: 32 },
    { header: 'Prefix', value: (k) => `${k.id}_abcdefgh`, minWidth: 13 },
    { header: 'Created', value: () => '2026-11-29', width: 10 },
    { header: 'Quota rpm/tpm/tpd', value: (k) => `${k.n} / ∞ / ∞`, minWidth: 17 },
    { header: 'Last used', value: () => '12 min', minWidth: 7 },
    { header: 'Rej 1h', value: (k) => k.n, width: 6, align: 'right' },
  ];
  const headers = (l: { shown: number[] }) => l.shown.map((i) => cols[i].header);

  it('leaves out the rightmost columns not kept before a kept one, wherever the kept one is', () => {
    const keep = [false, false, false, true, false, true];
    // without `keep` the short line loses the rightmost columns, the rejections first
    expect(headers(layoutColumns(cols, keys, 60))).not.toContain('Rej 1h');
    const kept = layoutColumns(cols, keys, 60, -1, keep);
    expect(headers(kept)).toEqual(['Name', 'Prefix', 'Quota rpm/tpm/tpd', 'Rej 1h']);
    // kept whole: the quota's natural width, not its minimum
    expect(kept.widths[kept.shown.indexOf(3)]).toBe('Quota rpm/tpm/tpd'.length);
    expect(kept.widths.reduce((a, b) => a + b, 0) + 2 + 2 * (kept.widths.length - 1)).toBeLessThanOrEqual(60);
    // with room, nothing is left out
    expect(headers(layoutColumns(cols, keys, 120, -1, keep))).toHaveLength(6);
  });

  it('leaves out other columns rather than cut a kept one, and narrows a kept one only when it cannot be whole', () => {
    const tools = [{ id: 'x', name: 'search_documents', n: 1 }];
    const wide: Column<K>[] = [
      { header: 'Time', value: () => '2026-11-29 05:30:45', width: 19 },
      { header: 'Agent', value: () => 'sales-copilot', minWidth: 12 },
      { header: 'Tool', value: (k) => k.name, minWidth: 6, maxWidth: 18 },
      { header: 'Error', value: () => 'budget_exceeded', minWidth: 15, holdsWidth: true },
      { header: 'Run', value: () => 'run_k3x9q2ma7tz', minWidth: 8 },
    ];
    const at = (width: number, keep: boolean[]) => {
      const l = layoutColumns(wide, tools, width, -1, keep);
      return Object.fromEntries(l.shown.map((i, n) => [wide[i].header, l.widths[n]]));
    };
    // 19 + 12 + 6 + 15 + 8 and the gaps: 70 fits, Tool cut to 6 when not kept
    expect(at(70, [])).toMatchObject({ Tool: 6, Run: 8 });
    // kept, Tool is whole and the run id is left out for it
    expect(at(70, [false, false, true, false, false])).toEqual({ Time: 19, Agent: 12, Tool: 16, Error: 15 });
    // too narrow for Tool whole even alone with the first column: it narrows to its minimum, last
    expect(at(36, [false, false, true, false, false])).toEqual({ Time: 19, Tool: 13 });
  });
});

describe('Table colours', () => {
  it("colours each cell by its column's tone, as Ink's own coloured Text would, and the cursor row in inverse", async () => {
    const { default: chalk } = await import('chalk');
    const level = chalk.level;
    chalk.level = 1;
    try {
      const toned: Column<Row>[] = [
        ...columns.slice(0, 2),
        { header: 'N', value: (r) => r.n, tone: (r) => (r.n % 2 ? 'bad' : 'ok'), width: 6 },
      ];
      const { lastFrame, unmount } = render(
        <Table columns={toned} rows={rows.slice(0, 3)} cursor={1} scroll={0} height={6} width={60} />,
      );
      const lines = lastFrame()!.split('\n');
      expect(lines[1]).toMatch(/\x1b\[32m {2}0 +\x1b\[39m/);
      expect(lines[2]).toMatch(/^\x1b\[7m\x1b\[1m› row-0001.*\x1b\[31m {2}1 +\x1b\[39m/);
      unmount();
    } finally {
      chalk.level = level;
    }
  });
});
