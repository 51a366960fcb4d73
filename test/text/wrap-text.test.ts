import { describe, expect, it } from 'vitest';
import { wrapText } from '../../src/dashboard/kit/text.js';

describe('wrapText', () => {
  it('keeps an ISO time whole, where it used to break after its colons', () => {
    const lines = wrapText('No audit entry yet: the request was sent at 2026-11-26T21:33:39.181Z.', 64);
    expect(lines).toEqual(['No audit entry yet: the request was sent at', '2026-11-26T21:33:39.181Z.']);
  });

  it('still breaks compact JSON after its commas and after the colon of a key', () => {
    expect(wrapText('{"reason":"quota","limit":4000000,"used":3999848}', 20)).toEqual([
      '{"reason":"quota",',
      '"limit":4000000,',
      '"used":3999848}',
    ]);
    expect(wrapText('{"a_rather_long_key_name":12}', 20)).toEqual(['{', '"a_rather_long_key_n', 'ame":12}']);
  });

  it('keeps a count with thousands separators whole (V said "(55," on one line and "560)" on the next)', () => {
    const lines = wrapText('the whole trail, entries #1–#55,560 (55,560), complete and unaltered', 44);
    expect(lines).toEqual(['the whole trail, entries #1–#55,560', '(55,560), complete and unaltered']);
  });
});

describe('wrapText and URLs', () => {
  it('keeps a URL\'s scheme with its host (the action log\'s command broke "http:" from "//127.0.0.1…")', () => {
    const lines = wrapText("-H 'Content-Type: application/json' 'http://127.0.0.1:43035/v1/admin/routing/chat'", 50);
    expect(lines).toEqual(["-H 'Content-Type: application/json'", "'http://127.0.0.1:43035/v1/admin/routing/chat'"]);
    // a colon followed by a space or a word still breaks (a label, JSON)
    expect(wrapText('{"reason":"quota","limit":4000000}', 20)).toEqual(['{"reason":"quota",', '"limit":4000000}']);
  });
});
