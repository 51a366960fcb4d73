import * as z from 'zod';
import { ROLES } from './roles.js';
import {
  AGENT_NAME,
  AGENT_NAME_CHARS,
  DISPLAY_NAME,
  DISPLAY_NAME_CHARS,
  NO_CREDENTIAL,
  holdsNoCredential,
} from './names.js';

export { MUTATING_ROLES, ROLES, mayMutate } from './roles.js';
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** RFC 3339 UTC timestamp, e.g. 2026-11-21T09:30:00Z (fractional seconds allowed). */
export const Timestamp = z.iso.datetime({ offset: false });
export type Timestamp = z.infer<typeof Timestamp>;

/** A whole number >= 0, or null for unlimited. */
export const Limit = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable();

/** Short human-entered names: printable, no control characters (names.ts, checked without zod too). */
export const DisplayName = z
  .string()
  .trim()
  .min(DISPLAY_NAME.min)
  .max(DISPLAY_NAME.max)
  .regex(DISPLAY_NAME.chars, DISPLAY_NAME_CHARS)
  .refine(holdsNoCredential, NO_CREDENTIAL);

/** An agent's name, as budgets key their overrides by it (names.ts, checked without zod too). */
export const AgentName = z
  .string()
  .min(AGENT_NAME.min)
  .max(AGENT_NAME.max)
  .regex(AGENT_NAME.chars, AGENT_NAME_CHARS)
  .refine(holdsNoCredential, NO_CREDENTIAL);

const InvalidParam = z.object({ name: z.string(), reason: z.string() });

/** RFC 9457 problem details, with this API's `code`, `request_id` and `invalid_params`. */
export const Problem = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  code: z.string(),
  detail: z.string().optional(),
  request_id: z.string().optional(),
  invalid_params: z.array(InvalidParam).optional(),
});
export type Problem = z.infer<typeof Problem>;

export const ERROR_CODES = {
  400: 'SVC-ADMIN-400',
  401: 'SVC-ADMIN-401',
  403: 'SVC-ADMIN-403',
  404: 'SVC-ADMIN-404',
  405: 'SVC-ADMIN-405',
  409: 'SVC-ADMIN-409',
  413: 'SVC-ADMIN-413',
  422: 'SVC-ADMIN-422',
  429: 'SVC-ADMIN-429',
  500: 'SVC-ADMIN-500',
  503: 'SVC-ADMIN-503',
} as const;
export const BOUNDARY_CODE = 'SVC-BOUNDARY-1';
/**
 * The appliance's audit trail does not extend the last checkpoint it signed, so it signs nothing more
 * (docs/audit-chain.md): a verifier reads this answer as the trail broken, not as "could not check".
 */
export const CHAIN_REFUSED_CODE = 'SVC-AUDIT-CHAIN';

/** The list envelope of every paged list. */
export const page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() });
export type Page<T> = { data: T[]; next_cursor: string | null; has_more: boolean };

export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  after: z.string().min(1).max(200).optional(),
});

/** Refinement shared by every query with a time range: end must come after start. */
export const endAfterStart = (q: { start_time?: string; end_time?: string }) =>
  q.start_time === undefined || q.end_time === undefined || Date.parse(q.end_time) > Date.parse(q.start_time);
export const END_AFTER_START = { message: 'end_time must be after start_time', path: ['end_time'] };
