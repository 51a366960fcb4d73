import type { z } from 'zod';
import { badRequest, type InvalidParam } from '../errors.js';

/** One entry per offending field, named by its path (an unknown field by its own name). */
const zodIssues = (err: z.ZodError, where: string): InvalidParam[] =>
  err.issues.slice(0, 20).flatMap((i) => {
    const at = i.path.map(String);
    const paths = i.code === 'unrecognized_keys' ? i.keys.map((k) => [...at, k]) : [at];
    return paths.map((path) => ({ name: path.join('.') || `(${where})`, reason: i.message }));
  });

/** A request's params, query or body checked against the contract's schema for it: 400 naming each bad field. */
export function parsePart(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) {
    // `{}` or no body at all; an array, even an empty one, is a body this route does not take
    const empty =
      value === undefined ||
      value === null ||
      (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);
    if (!empty) throw badRequest(`this route takes no ${where}`, [{ name: where, reason: 'not allowed' }]);
    return undefined;
  }
  const r = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (!r.success) throw badRequest(`invalid ${where}`, zodIssues(r.error, where));
  return r.data;
}
