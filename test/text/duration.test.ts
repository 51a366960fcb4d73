import { describe, expect, it } from 'vitest';
import { durationMs } from '../../src/text/duration.js';
import { parseTimeInput } from '../../src/text/time-input.js';
import { readInterval } from '../../src/config/interval.js';

describe('one grammar for a length of time (src/text/duration.ts)', () => {
  it('reads a number and a unit, the same everywhere', () => {
    expect(durationMs('500ms')).toBe(500);
    expect(durationMs('2s')).toBe(2000);
    expect(durationMs('1.5m')).toBe(90_000);
    expect(durationMs(' 2 h ')).toBe(7_200_000);
    expect(durationMs('7d')).toBe(604_800_000);
    expect(durationMs('2w')).toBe(1_209_600_000);
  });

  it('a bare number counts only where seconds are the unit', () => {
    expect(durationMs('3')).toBeNull();
    expect(durationMs('3', 's')).toBe(3000);
    expect(durationMs('fast', 's')).toBeNull();
    expect(durationMs('-2s')).toBeNull();
    expect(durationMs('2 parsecs')).toBeNull();
  });

  it('"the last 1.5h" and --refresh read the same grammar', () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    expect(parseTimeInput('1.5h', now)).toBe('2026-11-29T10:30:00Z');
    expect(parseTimeInput('90m', now)).toBe('2026-11-29T10:30:00Z');
    expect(readInterval('1.5m', '--refresh')).toBe(90_000);
    expect(readInterval('1h', '--refresh')).toBe(3_600_000);
  });

  it('the interval names what it read when it refuses it', () => {
    expect(readInterval('fast', '--refresh')).toBe('--refresh must look like 2s, 500ms or 1m, got fast');
    expect(readInterval('10ms', 'the interval')).toBe('the interval must be between 200ms and 60m');
    expect(readInterval('2h', 'refresh')).toBe('refresh must be between 200ms and 60m');
    expect(readInterval(2, 'refresh')).toBe(2000);
  });
});
