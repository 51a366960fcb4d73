import { describe, expect, it } from 'vitest';
import { parseExpiryInput } from '../../src/text/expiry-input.js';

/** An expiry as typed on the keys screen (E) and by `keys expire`: one reading for both. */
describe('parseExpiryInput', () => {
  const now = Date.parse('2026-11-29T09:30:12.500Z');

  it('reads a length from now, a date, a date and time (UTC unless a zone), and never', () => {
    expect(parseExpiryInput('30d', now)).toEqual({ ok: true, expires_at: '2026-12-29T09:30:12Z' });
    expect(parseExpiryInput(' 12h ', now)).toEqual({ ok: true, expires_at: '2026-11-29T21:30:12Z' });
    expect(parseExpiryInput('2026-12-31', now)).toEqual({ ok: true, expires_at: '2026-12-31T00:00:00Z' });
    expect(parseExpiryInput('2026-12-31 18:00', now)).toEqual({ ok: true, expires_at: '2026-12-31T18:00:00Z' });
    expect(parseExpiryInput('2026-12-31T18:00:00+02:00', now)).toEqual({
      ok: true,
      expires_at: '2026-12-31T16:00:00Z',
    });
    expect(parseExpiryInput('', now)).toEqual({ ok: true, expires_at: null });
    expect(parseExpiryInput('Never', now)).toEqual({ ok: true, expires_at: null });
  });

  it('refuses a time not in the future, and what is not a time', () => {
    expect(parseExpiryInput('2026-11-29', now)).toEqual({ ok: false, error: 'must be in the future' });
    expect(parseExpiryInput('0d', now)).toEqual({ ok: false, error: 'must be in the future' });
    for (const text of ['soon', '2026-02-30', '30 days', '-3d'])
      expect(parseExpiryInput(text, now), text).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^not a time/),
      });
  });
});
