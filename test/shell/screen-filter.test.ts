import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { filterRows } from '../../src/dashboard/shell/row-search.js';
import type { ListSpec } from '../../src/dashboard/kit/screen-api.js';
import { until } from '../helpers/until.js';

interface Row {
  id: string;
  actor: string;
  n: number;
}
const list = {
  resource: 'rows',
  columns: [
    { header: 'ID', value: (r: Row) => r.id },
    { header: 'Actor', value: (r: Row) => r.actor },
    { header: 'N', value: (r: Row) => r.n },
  ],
  rowKey: (r: Row) => r.id,
} as unknown as ListSpec<unknown>;

/** What the filter means: a row matches when one of its cells contains the text, ignoring case. */
const naive = (rows: Row[], filter: string) =>
  rows.filter((r) => [r.id, r.actor, String(r.n)].some((c) => c.toLowerCase().includes(filter.toLowerCase())));

const text = fc
  .array(fc.constantFrom('a', 'B', 'z', '0', '5', '9', '.', '-', ' ', 'é', '…', '_', 'Q'), { maxLength: 6 })
  .map((c) => c.join(''));

describe('filtering a list', () => {
  it('matches what the filter means, through any sequence of typing, deleting and retyping', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: text, actor: text, n: fc.integer({ min: 0, max: 99999 }) }), { maxLength: 60 }),
        fc.array(text, { minLength: 1, maxLength: 12 }),
        (rows, typed) => {
          // one answer (array) across all the filters, as while a person types
          for (const word of typed) {
            for (let n = 1; n <= word.length; n++)
              expect(filterRows(list, rows, word.slice(0, n)).rows).toEqual(naive(rows, word.slice(0, n)));
            for (let n = word.length - 1; n >= 1; n--)
              expect(filterRows(list, rows, word.slice(0, n)).rows).toEqual(naive(rows, word.slice(0, n)));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a match never spans two cells', () => {
    const rows = [{ id: 'ab', actor: 'cd', n: 1 }];
    expect(filterRows(list, rows, 'bc').rows).toEqual([]);
    expect(filterRows(list, rows, 'CD').rows).toEqual(rows);
  });

  it('over a long list, a key gets the first matches at once and the search completes between frames', async () => {
    const rows: Row[] = Array.from({ length: 200_000 }, (_, i) => ({
      id: `row-${i}`,
      actor: i % 3 ? 'svc-ingest' : 'alice',
      n: i,
    }));
    let completed = 0;
    const first = filterRows(list, rows, 'svc', () => completed++);
    expect(first.complete).toBe(false);
    // the first matches, in list order: as many as the key's 3 ms slice finds (about 300 at
    // most; how many is the machine's speed, measured by the dashboard-keys benchmark, not here)
    expect(first.rows.length).toBeGreaterThan(0);
    expect(first.rows).toEqual(naive(rows, 'svc').slice(0, first.rows.length));
    expect(first.rows.slice(0, 3)).toEqual([rows[1], rows[2], rows[4]]);
    await until('the search to complete', () => completed > 0);
    expect(completed).toBe(1);
    const done = filterRows(list, rows, 'svc', () => completed++);
    expect(done.complete).toBe(true);
    expect(done.rows).toEqual(naive(rows, 'svc'));
    // a search dropped for a newer key never completes into the screen
    let dropped = 0;
    filterRows(list, rows, 'svc-i', () => dropped++);
    const newer = filterRows(list, rows, 'svc-in', () => completed++);
    // the dropped one's next slice was queued (setImmediate) before the newer one's: once the newer
    // one has completed, or one turn has passed, it has run
    if (!newer.complete) await until('the newer search to complete', () => completed > 1);
    else await new Promise((r) => setImmediate(r));
    expect(dropped).toBe(0);
    expect(filterRows(list, rows, 'svc-in').rows).toHaveLength(
      newer.complete ? newer.rows.length : naive(rows, 'svc-in').length,
    );
  });

  it("the first search over a long list reads the rows' cells in slices, once each, not all on the key", async () => {
    let reads = 0;
    const counted = {
      ...list,
      columns: list.columns.map((c) => ({ ...c, value: (r: unknown) => (reads++, c.value(r)) })),
    } as ListSpec<unknown>;
    const rows: Row[] = Array.from({ length: 100_000 }, (_, i) => ({ id: `row-${i}`, actor: 'svc-ingest', n: i }));
    const cells = rows.length * counted.columns.length;
    let completed = 0;
    // a word no row holds: the whole list must be read before the search can say so
    const first = filterRows(counted, rows, 'nobody', () => completed++);
    expect(first).toEqual({ rows: [], complete: false });
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(cells / 2);
    await new Promise<void>((resolve) => {
      const wait = () => (completed ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(reads).toBe(cells);
    // kept: another word reads no cell again, and finds what the filter means
    const found = filterRows(counted, rows, 'ROW-9999');
    expect(found.rows).toEqual(naive(rows, 'row-9999'));
    expect(reads).toBe(cells);
  });

  it('a filter typed again, or deleted back to, shows the rows it found before without copying them', () => {
    const rows: Row[] = Array.from({ length: 1_000 }, (_, i) => ({
      id: `row-${i}`,
      actor: i % 2 ? 'svc-ingest' : 'alice',
      n: i,
    }));
    const svc = filterRows(list, rows, 'svc').rows;
    filterRows(list, rows, 'svc-');
    // Backspace: the very array shown before, however many rows it holds
    expect(filterRows(list, rows, 'svc').rows).toBe(svc);
    expect(svc).toEqual(naive(rows, 'svc'));
  });

  it('keeps the filters used last: 64 of them, and at most a million rows in all', () => {
    const rows: Row[] = Array.from({ length: 250_001 }, (_, i) => ({ id: `row-${i}`, actor: 'svc-ingest', n: i }));
    const first = filterRows(list, rows, 'r').rows;
    const second = filterRows(list, rows, 'ro').rows;
    filterRows(list, rows, 'row');
    // 'r' used again: 'ro' is now the least recently used
    expect(filterRows(list, rows, 'r').rows).toBe(first);
    // four results of 250,001 rows are more than a million: the least recently used goes
    filterRows(list, rows, 'row-');
    expect(filterRows(list, rows, 'r').rows).toBe(first);
    const again = filterRows(list, rows, 'ro').rows;
    expect(again).not.toBe(second);
    expect(again).toEqual(second);

    const few = rows.slice(0, 100);
    const kept = filterRows(list, few, 'row-1').rows;
    const zero = filterRows(list, few, '0').rows;
    for (let n = 1; n < 70; n++) {
      filterRows(list, few, String(n));
      // used on every key: never the least recently used
      expect(filterRows(list, few, 'row-1').rows).toBe(kept);
    }
    // more than 64 filters since: '0' was searched again
    const oldest = filterRows(list, few, '0').rows;
    expect(oldest).not.toBe(zero);
    expect(oldest).toEqual(zero);
  });
});
