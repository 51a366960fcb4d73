import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { tableTime } from '../../screens/shared/history.js';

// The table's time is what Date makes of the text, in UTC, to the second; text Date cannot read
// shows as it came. A faster tableTime must show the same for every input.
const viaDate = (iso: string) => {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 19).replace('T', ' ') : iso;
};

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

  it('shows every instant as Date would (property)', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(0), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }), fc.boolean(), (d, ms) => {
        const iso = ms ? d.toISOString() : d.toISOString().replace(/\.\d+Z$/, 'Z');
        expect(tableTime(iso)).toBe(viaDate(iso));
      }),
      { numRuns: 500 },
    );
  });
});
