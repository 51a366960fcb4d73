/**
 * The credentials this appliance makes or accepts, in their exact forms (src/server/gateway/keys.ts,
 * src/server/tokens.ts: a prefix and 32 random bytes base64url; a signed JWT from its identity
 * provider; a PEM private key, as its signing key is kept). Without zod: the evidence pack's scan
 * (src/audit-chain/evidence-contents.ts) and the contract's names (common.ts, which refuses a name that
 * holds one: a secret pasted as a name would be stored and audited) share them.
 *
 * Generic text such as "Bearer" and a word is not among them: anyone may type that into a key's
 * name, and a pack refused for it would let them stop every pack for as long as the entry stays in range.
 */
export const CREDENTIAL_FORMS: readonly (readonly [RegExp, string])[] = [
  [/(?<![\w-])agk_[A-Za-z0-9_-]{43}(?![\w-])/, 'a gateway key secret'],
  [/(?<![\w-])aat_[A-Za-z0-9_-]{43}(?![\w-])/, 'an admin token'],
  [/(?<![\w-])eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{16,}/, 'a signed token (JWT)'],
  // the key's body follows on the next line (in JSON, an escaped newline)
  [/-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----(?:\\n|\r?$)/, 'a private key'],
];

/** Which kind of credential `text` holds, or null. */
export const credentialIn = (text: string): string | null =>
  CREDENTIAL_FORMS.find(([re]) => re.test(text))?.[1] ?? null;
