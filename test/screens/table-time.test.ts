import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { tableTime } from '../../src/dashboard/kit/table-time.js';

const two = (n: number) => String(n).padStart(2, '0');
/** The instant's own UTC fields, to the second: what the table must show. */
const utcFields = (d: Date) =>
  `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;

describe('tableTime', () => {
  it.each([
    ['2026-11-21T09:30:12Z', '2026-11-21 09:30:12'],
    ['2026-11-21T09:30:12.345Z', '2026-11-21 09:30:12'],
    ['2026-11-21T10:30:12+01:00', '2026-11-21 09:30:12'],
    ['2026-02-30T00:00:00Z', '2026-03-02 00:00:00'],
    ['2026-11-21T24:00:00Z', '2026-11-22 00:00:00'],
    ['yesterday', 'yesterday'],
    ['', '–'],
    [null, '–'],
  ])('%s shows as %s', (iso, shown) => {
    expect(tableTime(iso)).toBe(shown);
  });

  it('shows every instant in UTC, to the second, with or without milliseconds (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(0), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }),
        fc.boolean(),
        (d, ms) => {
          const iso = ms ? d.toISOString() : d.toISOString().replace(/\.\d+Z$/, 'Z');
          expect(tableTime(iso)).toBe(utcFields(d));
        },
      ),
      { numRuns: 500 },
    );
  });
});
