import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentName, DisplayName } from '../../src/contract/common.js';
import { isAgentName, isDisplayName } from '../../src/contract/names.js';

/** The screens check names without zod (names.ts); the contract's schemas must agree on every input. */
const SECRET = `agk_${'A'.repeat(43)}`;
const edges = [
  '',
  ' ',
  '  x  ',
  'a'.repeat(64),
  ` ${'a'.repeat(64)} `,
  'a'.repeat(65),
  'a'.repeat(100),
  'a'.repeat(101),
  'tab\there',
  'zero\u200bwidth',
  'bidi\u202eoverride',
  'é clair 日本',
  '.dot-first',
  '_under',
  'agent-1.v2_x',
  `name ${SECRET}`,
  SECRET,
  'Bearer something',
  // zod counts code points: 33 emoji are 66 UTF-16 units and 33 characters
  '🙂'.repeat(33),
  '🙂'.repeat(64),
  '🙂'.repeat(65),
  `${'a'.repeat(63)}🙂`,
  `${'a'.repeat(64)}\ud83d`,
  `${'a'.repeat(63)}\ud83d`,
  'e\u0301'.repeat(32),
  'e\u0301'.repeat(33),
];
const text = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.string({ unit: 'grapheme', maxLength: 70 }),
  fc.string({ unit: 'binary', minLength: 55, maxLength: 110 }),
  fc.stringMatching(/^[A-Za-z0-9._ -]{0,110}$/),
  fc.constantFrom(...edges),
);

describe('names without zod agree with the contract', () => {
  it('isDisplayName is DisplayName', () => {
    for (const s of edges) expect(isDisplayName(s), JSON.stringify(s)).toBe(DisplayName.safeParse(s).success);
    fc.assert(
      fc.property(text, (s) => isDisplayName(s) === DisplayName.safeParse(s).success),
      { numRuns: 2000 },
    );
  });
  it('isAgentName is AgentName', () => {
    for (const s of edges) expect(isAgentName(s), JSON.stringify(s)).toBe(AgentName.safeParse(s).success);
    fc.assert(
      fc.property(text, (s) => isAgentName(s) === AgentName.safeParse(s).success),
      { numRuns: 2000 },
    );
  });
  it('refuse what they should', () => {
    expect(isDisplayName('  ok  ')).toBe(true);
    expect(isDisplayName(`key ${SECRET}`)).toBe(false);
    expect(isDisplayName('a\u0007b')).toBe(false);
    expect(isAgentName('-x')).toBe(false);
    expect(isAgentName('finance-analyst')).toBe(true);
  });
});
