import type { z } from 'zod';
import type { RouteMeta, RouteName } from '../contract/route-meta.js';
import { MAX_DEPTH, MAX_ITEMS, sanitize, sanitizeDeep, type Cuts } from '../text/sanitize.js';
import { NOT_THIS_API, TransportError, type SchemaIssue } from './errors.js';
import { foreignAnswer, isPlainObject, readTolerantly } from './normalize.js';
import { looksLikeHtml } from './problem.js';
import { routeSchemas } from './route-schemas.js';

/** A JSON route's answer as read: mended to the contract, sanitized and cut. */
export interface JsonAnswer {
  data: unknown;
  /** where the answer did not fit the contract, or was cut */
  issues: SchemaIssue[];
  /** the parsed JSON as it came, neither mended nor sanitized (CallResult.served) */
  raw: unknown;
  /** read while checks were deferred: sanitized and cut, but not checked against the contract */
  unchecked: boolean;
}

/**
 * Reads a successful answer's text: JSON, from this API (not a stranger's envelope), mended
 * tolerantly to the route's contract, then sanitized and cut. `deferChecks`: a GET's object answer
 * skips the contract (ApiClient.deferChecks: the first frame loads no schema).
 */
export async function readJsonAnswer(
  name: RouteName,
  def: RouteMeta,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  deferChecks: boolean,
): Promise<JsonAnswer> {
  let raw: unknown;
  try {
    raw = text === '' ? undefined : JSON.parse(text);
  } catch {
    const what = looksLikeHtml(headers, text)
      ? 'an HTML page, not JSON (a proxy or sign-in page in between?)'
      : 'not valid JSON';
    throw new TransportError('protocol', `the answer to ${def.method} ${def.path} is ${what}`);
  }
  const unchecked = deferChecks && def.method === 'GET' && isPlainObject(raw);
  const schema = unchecked ? null : ((await routeSchemas(name)).response as z.ZodType);
  // an answer without this API's envelope would otherwise be mended into an empty list
  const foreign = schema && foreignAnswer(schema, raw);
  if (foreign)
    throw new TransportError(
      'protocol',
      `the answer to ${def.method} ${def.path} is not from the appliance API: ${sanitize(foreign, 300)}`,
      NOT_THIS_API,
    );
  let value: unknown = raw;
  let issues: SchemaIssue[] = [];
  let data: unknown;
  try {
    if (schema) ({ value, issues } = readTolerantly(schema, raw));
    const cuts: Cuts = { depth: false, items: false };
    data = sanitizeDeep(value, undefined, 0, cuts);
    if (cuts.items) issues = [...issues, { path: '(root)', message: `lists longer than ${MAX_ITEMS} items were cut` }];
    if (cuts.depth)
      issues = [...issues, { path: '(root)', message: `values nested deeper than ${MAX_DEPTH} levels were cut` }];
  } catch {
    // e.g. JSON nested deeper than any reader's stack: unreadable, not a crash
    throw new TransportError('protocol', `the answer to ${def.method} ${def.path} could not be read`);
  }
  return { data, issues, raw, unchecked };
}
