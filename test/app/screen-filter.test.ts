import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { filterRows } from '../../src/app/screen-data.js';
import type { ListSpec } from '../../src/ui/screen-api.js';

interface Row { id: string; actor: string; n: number }
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
const naive = (rows: Row[], filter: string) => rows.filter((r) => [r.id, r.actor, String(r.n)].some((c) => c.toLowerCase().includes(filter.toLowerCase())));

const text = fc.array(fc.constantFrom('a', 'B', 'z', '0', '5', '9', '.', '-', ' ', 'é', '…', '_', 'Q'), { maxLength: 6 }).map((c) => c.join(''));

describe('filtering a list', () => {
  it('matches what the filter means, through any sequence of typing, deleting and retyping', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ id: text, actor: text, n: fc.integer({ min: 0, max: 99999 }) }), { maxLength: 60 }), fc.array(text, { minLength: 1, maxLength: 12 }), (rows, typed) => {
        // one answer (array) across all the filters, as while a person types
        for (const word of typed) {
          for (let n = 1; n <= word.length; n++) expect(filterRows(list, rows, word.slice(0, n)).rows).toEqual(naive(rows, word.slice(0, n)));
          for (let n = word.length - 1; n >= 1; n--) expect(filterRows(list, rows, word.slice(0, n)).rows).toEqual(naive(rows, word.slice(0, n)));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a match never spans two cells', () => {
    const rows = [{ id: 'ab', actor: 'cd', n: 1 }];
    expect(filterRows(list, rows, 'bc').rows).toEqual([]);
    expect(filterRows(list, rows, 'CD').rows).toEqual(rows);
  });

  it('over a long list, a key gets the first matches at once and the search completes between frames', async () => {
    const rows: Row[] = Array.from({ length: 200_000 }, (_, i) => ({ id: `row-${i}`, actor: i % 3 ? 'svc-ingest' : 'alice', n: i }));
    let completed = 0;
    const first = filterRows(list, rows, 'svc', () => completed++);
    expect(first.complete).toBe(false);
    // the first matches, in list order: enough to fill a screen
    expect(first.rows.length).toBeGreaterThanOrEqual(300);
    expect(first.rows.slice(0, 3)).toEqual([rows[1], rows[2], rows[4]]);
    await new Promise<void>((resolve) => {
      const wait = () => (completed ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(completed).toBe(1);
    const done = filterRows(list, rows, 'svc', () => completed++);
    expect(done.complete).toBe(true);
    expect(done.rows).toEqual(naive(rows, 'svc'));
    // a search dropped for a newer key never completes into the screen
    let dropped = 0;
    filterRows(list, rows, 'svc-i', () => dropped++);
    const newer = filterRows(list, rows, 'svc-in', () => completed++);
    await new Promise((r) => setTimeout(r, 300));
    expect(dropped).toBe(0);
    expect(filterRows(list, rows, 'svc-in').rows).toHaveLength(newer.complete ? newer.rows.length : naive(rows, 'svc-in').length);
  });

  it("the first search over a long list reads the rows' cells in slices, once each, not all on the key", async () => {
    let reads = 0;
    const counted = { ...list, columns: list.columns.map((c) => ({ ...c, value: (r: unknown) => (reads++, c.value(r)) })) } as ListSpec<unknown>;
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
});
