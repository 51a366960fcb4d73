import { describe, expect, it } from 'vitest';
import type { Column } from '../../src/dashboard/kit/screen-api.js';
import { bytes } from '../../src/dashboard/kit/format.js';
import { compareKeys, flipSort, nextSort, sortKeyOf, sortRows, timeKey } from '../../src/dashboard/kit/sort.js';

interface Row {
  id: string;
  n?: number | null;
  size?: number | null;
  at?: string | null;
  text?: string;
  rpm?: number | null;
}
const rows = (...r: Row[]) => r;
const ids = (r: Row[]) => r.map((x) => x.id);

const sorted = (r: Row[], col: Column<Row>, descending = false) => ids(sortRows(r, col, descending));

describe('sorting a column by value', () => {
  it('numbers by value, not by their text ("10" after "9"), nulls last both ways', () => {
    const col: Column<Row> = { header: 'N', value: (x) => x.n };
    const r = rows(
      { id: 'ten', n: 10 },
      { id: 'none', n: null },
      { id: 'nine', n: 9 },
      { id: 'nan', n: NaN },
      { id: 'minus', n: -1 },
    );
    expect(sorted(r, col)).toEqual(['minus', 'nine', 'ten', 'none', 'nan']);
    expect(sorted(r, col, true)).toEqual(['ten', 'nine', 'minus', 'none', 'nan']);
  });

  it('sizes by bytes through the column sort key ("1.0 GiB" above "900.0 MiB")', () => {
    const col: Column<Row> = { header: 'Size', value: (x) => bytes(x.size), sort: (x) => x.size ?? null };
    const r = rows(
      { id: 'gib', size: 1024 ** 3 },
      { id: 'mib', size: 900 * 1024 ** 2 },
      { id: 'unknown', size: null },
      { id: 'kib', size: 2048 },
    );
    expect(sorted(r, col)).toEqual(['kib', 'mib', 'gib', 'unknown']);
    expect(sorted(r, col, true)).toEqual(['gib', 'mib', 'kib', 'unknown']);
  });

  it('quotas with ∞ (unlimited) above any limit, a missing quota last', () => {
    const col: Column<Row> = {
      header: 'Quota',
      value: (x) => (x.rpm === null ? '∞' : String(x.rpm)),
      sort: (x) => (x.rpm === undefined ? null : (x.rpm ?? Infinity)),
    };
    const r = rows(
      { id: 'unlimited', rpm: null },
      { id: '10k', rpm: 10_000 },
      { id: 'missing' },
      { id: '9k', rpm: 9000 },
    );
    expect(sorted(r, col)).toEqual(['9k', '10k', 'unlimited', 'missing']);
    expect(sorted(r, col, true)).toEqual(['unlimited', '10k', '9k', 'missing']);
  });

  it('ISO times by time (a cell value that is a time sorts without a key); "never" last', () => {
    const col: Column<Row> = { header: 'At', value: (x) => x.at };
    const r = rows(
      { id: 'late', at: '2026-11-21T10:00:00Z' },
      { id: 'never', at: null },
      { id: 'early', at: '2026-11-21T09:00:00.500+00:00' },
      { id: 'offset', at: '2026-11-21T10:30:00+01:00' },
    );
    // 10:30+01:00 is 09:30Z
    expect(sorted(r, col)).toEqual(['early', 'offset', 'late', 'never']);
    expect(timeKey('not a time')).toBeNull();
    expect(timeKey(undefined)).toBeNull();
  });

  it('text case-blind with numbers inside in order; "–" and a throwing cell count as unknown', () => {
    const col: Column<Row> = {
      header: 'Name',
      value: (x) =>
        x.id === 'bad'
          ? (() => {
              throw new Error('x');
            })()
          : x.text,
    };
    const r = rows(
      { id: 'b', text: 'key 10' },
      { id: 'a', text: 'Key 9' },
      { id: 'bad' },
      { id: 'dash', text: '–' },
      { id: 'c', text: 'alpha' },
    );
    expect(sorted(r, col)).toEqual(['c', 'a', 'b', 'bad', 'dash']);
    expect(sortKeyOf(col, { id: 'bad' })).toBeNull();
  });

  it('is stable: equal keys keep the appliance order in both directions', () => {
    const col: Column<Row> = { header: 'N', value: (x) => x.n };
    const r = rows({ id: 'a1', n: 1 }, { id: 'b2', n: 2 }, { id: 'a2', n: 1 }, { id: 'b1', n: 2 }, { id: 'a3', n: 1 });
    expect(sorted(r, col)).toEqual(['a1', 'a2', 'a3', 'b2', 'b1']);
    expect(sorted(r, col, true)).toEqual(['b2', 'b1', 'a1', 'a2', 'a3']);
  });

  it('numbers before text, and nulls after both', () => {
    expect([null, 'x', 3, 'a', 1].sort((a, b) => compareKeys(a, b))).toEqual([1, 3, 'a', 'x', null]);
    expect([null, 'x', 3, 'a', 1].sort((a, b) => compareKeys(a, b, true))).toEqual(['x', 'a', 3, 1, null]);
  });
});

describe('s and S', () => {
  const cols: Column<Row>[] = [
    { header: 'A', value: () => 1 },
    { header: 'B', value: () => 2 },
  ];
  it('s goes through each column, then back to the appliance order', () => {
    expect(nextSort(cols, null)).toEqual({ column: 'A', descending: false });
    expect(nextSort(cols, { column: 'A', descending: true })).toEqual({ column: 'B', descending: false });
    expect(nextSort(cols, { column: 'B', descending: false })).toBeNull();
    // a column that is no longer there: starts over
    expect(nextSort(cols, { column: 'gone', descending: false })).toEqual({ column: 'A', descending: false });
  });
  it('S flips the direction, and on an unsorted list sorts the first column descending', () => {
    expect(flipSort(cols, { column: 'B', descending: false })).toEqual({ column: 'B', descending: true });
    expect(flipSort(cols, { column: 'B', descending: true })).toEqual({ column: 'B', descending: false });
    expect(flipSort(cols, null)).toEqual({ column: 'A', descending: true });
  });
});
