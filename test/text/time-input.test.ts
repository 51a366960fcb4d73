import { describe, expect, it } from 'vitest';
import { isoSeconds, parseTimeInput } from '../../src/text/time-input.js';

const NOW = Date.parse('2026-11-21T09:30:12.345Z');

describe('isoSeconds', () => {
  it('is RFC 3339 UTC without the part below a second', () => {
    expect(isoSeconds(NOW)).toBe('2026-11-21T09:30:12Z');
    expect(isoSeconds(Date.parse('2026-11-21T09:30:00Z'))).toBe('2026-11-21T09:30:00Z');
  });
});

describe('parseTimeInput', () => {
  it.each([
    ['15m', '2026-11-21T09:15:12Z'],
    ['2h', '2026-11-21T07:30:12Z'],
    [' 7d ', '2026-11-14T09:30:12Z'],
    ['2w', '2026-11-07T09:30:12Z'],
    ['90s', '2026-11-21T09:28:42Z'],
    ['2026-11-21', '2026-11-21T00:00:00Z'],
    ['2026-11-21 09:30', '2026-11-21T09:30:00Z'],
    ['2026-11-21T09:30:00Z', '2026-11-21T09:30:00Z'],
    ['2026-11-21t09:30:00z', '2026-11-21T09:30:00Z'],
    ['2026-11-21T10:30:00+01:00', '2026-11-21T09:30:00Z'],
    ['2026-11-21T09:30:12.345Z', '2026-11-21T09:30:12.345Z'],
    ['2026-11-21T09:30:12.3456789Z', '2026-11-21T09:30:12.345Z'],
    ['2024-02-29', '2024-02-29T00:00:00Z'],
  ])('%s -> %s', (typed, iso) => {
    expect(parseTimeInput(typed, NOW)).toBe(iso);
  });

  it.each(['', 'yesterday', '7', 'd', '7 days', '2026-02-30', '2026-13-01', '2025-02-29', '2026-11-21 25:00'])(
    'refuses %j',
    (typed) => {
      expect(parseTimeInput(typed, NOW)).toBeNull();
    },
  );

  it('refuses a duration reaching before 1970', () => {
    expect(parseTimeInput('999999999w', NOW)).toBeNull();
  });
});
