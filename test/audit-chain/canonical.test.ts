import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { entryHash as hashEntry } from '../../src/audit-chain/canonical.js';
import { chainedTrail, entryHash } from '../helpers/audit-chain.js';

describe('hashEntry', () => {
  it('is the scheme hash (canonicalize package) for entries of the served shape, whatever their values', () => {
    const json = fc.jsonValue();
    const key = fc.oneof(fc.string({ unit: 'binary' }), fc.nat().map(String), fc.constantFrom('__proto__', 'a', 'b'));
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constant(''));
    const nullable = fc.option(text, { nil: null });
    fc.assert(
      fc.property(
        fc.record({
          id: text,
          at: text,
          actor: fc.record({ subject: text, role: nullable }),
          action: text,
          target: fc.record({ type: text, id: nullable, name: nullable }),
          outcome: text,
          status: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
          request_id: text,
          source_ip: nullable,
          details: fc.dictionary(key, json),
          seq: fc.integer({ min: 1 }),
          prev_hash: text,
          hash: fc.string(),
        }),
        (e) => {
          // a value through JSON, as a verifier reads it
          const parsed = JSON.parse(JSON.stringify(e)) as Record<string, unknown>;
          let expected: string | Error;
          try {
            expected = entryHash(parsed);
          } catch (err) {
            expected = err as Error;
          }
          if (expected instanceof Error) expect(() => hashEntry(parsed)).toThrow();
          else expect(hashEntry(parsed)).toBe(expected);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('refuses a lone surrogate, as RFC 8785 does, and hashes an entry of another shape through the package', () => {
    const [e] = chainedTrail(1);
    expect(() => hashEntry({ ...e, details: { note: '\ud800' } })).toThrow(/surrogate/i);
    const extra = { ...e, extra_field: 1 };
    expect(hashEntry(extra)).toBe(entryHash(extra));
    expect(hashEntry(e)).toBe(e.hash);
    // integer-like keys, which JavaScript orders numerically and RFC 8785 by UTF-16 units
    const numeric = JSON.parse(JSON.stringify({ ...e, details: { b: 1, 10: 2, 2: { 3: 0, 20: 1 }, '1a': 3 } }));
    expect(hashEntry(numeric)).toBe(entryHash(numeric));
    const proto = JSON.parse(JSON.stringify(e).replace('"details":{}', '"details":{"z":1,"__proto__":{"a":1}}'));
    expect(hashEntry(proto)).toBe(entryHash(proto));
  });
});
