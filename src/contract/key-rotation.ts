/**
 * A rotation's grace: how long a gateway key's replaced secret keeps working. Without zod, so that
 * the keys screen and the CLI can offer it without building the gateway's schemas at start
 * (docs/performance.md).
 */

/** The grace when none is given: a day, time for every client to take the new secret. */
export const DEFAULT_GRACE_SECONDS = 86_400;
/** The longest grace: a replaced secret that works for months is a second key nobody sees. */
export const MAX_GRACE_SECONDS = 30 * 86_400;
