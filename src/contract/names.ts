import { credentialIn } from './credential-forms.js';

/**
 * The rules for names people type (a key's, an agent's), without zod: the screens check a form's
 * field with them as it is typed, and common.ts builds the contract's schemas from the same rules,
 * so the two cannot disagree (test/contract/names.test.ts) and the dashboard's start loads no zod.
 */

// A name that holds a credential would be stored, listed and audited: never a secret's place.
export const holdsNoCredential = (v: string) => credentialIn(v) === null;
export const NO_CREDENTIAL =
  'must not hold a credential (a key secret, a token or a private key): it would be stored and audited';

/** Short human-entered names: printable, no control characters; checked after trimming. */
export const DISPLAY_NAME = { min: 1, max: 64, chars: /^[^\p{Cc}\p{Cf}]+$/u } as const;
export const DISPLAY_NAME_CHARS = 'must not contain control or format characters';

/** An agent's name, as budgets key their overrides by it. */
export const AGENT_NAME = { min: 1, max: 100, chars: /^[A-Za-z0-9][A-Za-z0-9._-]*$/ } as const;
export const AGENT_NAME_CHARS = 'letters, digits, . _ -';

/** Lengths in code points, as zod counts them: an emoji is one, a lone surrogate one too. */
const fits = (rule: { min: number; max: number; chars: RegExp }, s: string) => {
  const length = [...s].length;
  return length >= rule.min && length <= rule.max && rule.chars.test(s) && holdsNoCredential(s);
};

/** What common.ts's DisplayName accepts (it trims first). */
export const isDisplayName = (s: string): boolean => fits(DISPLAY_NAME, s.trim());

/** What common.ts's AgentName accepts. */
export const isAgentName = (s: string): boolean => fits(AGENT_NAME, s);
