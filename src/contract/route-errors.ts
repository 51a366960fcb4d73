import type { ERROR_CODES, BOUNDARY_CODE } from './common.js';
import type { RouteMeta, RouteName } from './route-meta.js';

/**
 * Which error answers each route can give, and when: the facts the OpenAPI document lists
 * (openapi.ts), kept here as data so that a test can ask the real server for each of them
 * (test/contract/openapi-errors.test.ts). Like route-meta.ts this file loads no zod.
 *
 * Every route gives 400, 401, 403 and 503 (route-kit.ts, auth.ts, app.ts); a route with a body
 * also 413, and an audited one (a mutation, the seal) 422 at the metadata boundary. A route that writes
 * the audit trail (an audited one, an export) gives 429 past its caller's rate (server/http/rate-limit.ts);
 * reads never do, except a text search past its caller's search allowance. The rest come from the
 * routes' own checks, listed below.
 */
type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES] | typeof BOUNDARY_CODE;

export interface ErrorAnswer {
  status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 503;
  /** the problem's `code`, one per cause where causes differ in code (422) */
  code: ErrorCode;
  /** when this route gives it */
  when: string;
}

/** Text search's limits (server/governance/search.ts, search-allowance.ts). */
const SEARCH_THROTTLED: ErrorAnswer = {
  status: 429,
  code: 'SVC-ADMIN-429',
  when:
    'with `q`: its caller has four searches under way, or spent its search time (100 ms of the server a second); ' +
    '`Retry-After` says when to retry',
};
const SEARCH_TOO_BROAD: ErrorAnswer = {
  status: 422,
  code: 'SVC-ADMIN-422',
  when: 'with `q`: the text is too common to count over the range (more than 50,000 entries to read); narrow it',
};

/** The errors only some routes give: their handlers' own checks (src/server/routes and what they call). */
const OWN_ERRORS: { [N in RouteName]?: ErrorAnswer[] } = {
  ingest: [
    { status: 404, code: 'SVC-ADMIN-404', when: 'no such connector, or the connector has no such source' },
    {
      status: 409,
      code: 'SVC-ADMIN-409',
      when: 'ingestion of that source is already queued or running, or the connector is disabled in the configuration',
    },
  ],
  getJob: [{ status: 404, code: 'SVC-ADMIN-404', when: 'no such job' }],
  updateChannels: [{ status: 404, code: 'SVC-ADMIN-404', when: 'a channel that does not exist (nothing is changed)' }],
  createKey: [
    {
      status: 409,
      code: 'SVC-ADMIN-409',
      when: 'an active key already has that name (any letter case), or a budget is given and the appliance has no pricing',
    },
  ],
  revokeKey: [{ status: 404, code: 'SVC-ADMIN-404', when: 'no such key' }],
  setQuota: [
    { status: 404, code: 'SVC-ADMIN-404', when: 'no such key' },
    { status: 409, code: 'SVC-ADMIN-409', when: 'the key is revoked: its quota can no longer change' },
  ],
  setKeyExpiry: [
    { status: 404, code: 'SVC-ADMIN-404', when: 'no such key' },
    { status: 409, code: 'SVC-ADMIN-409', when: 'the key is revoked: its expiry can no longer change' },
  ],
  rotateKey: [
    { status: 404, code: 'SVC-ADMIN-404', when: 'no such key' },
    {
      status: 409,
      code: 'SVC-ADMIN-409',
      when: 'the key is revoked, or has expired (set a later expiry or clear it first)',
    },
  ],
  setKeyBudget: [
    { status: 404, code: 'SVC-ADMIN-404', when: 'no such key' },
    {
      status: 409,
      code: 'SVC-ADMIN-409',
      when: 'the appliance has no pricing (no currency to count a budget in), or the key is revoked',
    },
  ],
  usage: [{ status: 404, code: 'SVC-ADMIN-404', when: '`key_id` names no key' }],
  activateModel: [
    { status: 404, code: 'SVC-ADMIN-404', when: 'unknown model' },
    { status: 422, code: 'SVC-ADMIN-422', when: 'the model is known but its files are not on the appliance' },
  ],
  setRouting: [
    { status: 404, code: 'SVC-ADMIN-404', when: 'unknown workload or unknown model' },
    { status: 422, code: 'SVC-ADMIN-422', when: 'the model is known but its files are not on the appliance' },
  ],
  listAudit: [SEARCH_THROTTLED],
  listJournal: [SEARCH_THROTTLED],
  auditSummary: [SEARCH_TOO_BROAD, SEARCH_THROTTLED],
  journalSummary: [SEARCH_TOO_BROAD, SEARCH_THROTTLED],
};

/** Every error answer of one admin route, by status (a status with two codes appears twice). */
export function routeErrors(meta: RouteMeta): ErrorAnswer[] {
  // the server checks an audited route's body at the metadata boundary (audited-routes.ts)
  const audited = meta.action !== undefined;
  const answers: ErrorAnswer[] = [
    {
      status: 400,
      code: 'SVC-ADMIN-400',
      when: audited
        ? 'malformed JSON, a bad path parameter, an unknown query parameter or body field, an invalid value'
        : 'a bad path or query parameter, an unknown query parameter, a bad cursor',
    },
    { status: 401, code: 'SVC-ADMIN-401', when: 'no bearer token, or one that is unknown, expired or revoked' },
    {
      status: 403,
      code: 'SVC-ADMIN-403',
      when: meta.mutates
        ? 'an auditor (the attempt is audited as denied), or a single sign-on token that maps to no role'
        : 'a single sign-on token that maps to no role',
    },
    ...(OWN_ERRORS[meta.name as RouteName] ?? []),
  ];
  if (meta.method !== 'GET')
    answers.push({ status: 413, code: 'SVC-ADMIN-413', when: 'the request body is over 64 KiB' });
  if (audited || meta.auditedAs !== undefined)
    answers.push({
      status: 429,
      code: 'SVC-ADMIN-429',
      when:
        'its caller sent more requests that write the audit trail than its rate allows (changes and attempts at ' +
        'them, exports, seals); `Retry-After` says when to retry',
    });
  if (audited)
    answers.push({
      status: 422,
      code: 'SVC-BOUNDARY-1',
      when: 'the body carries content (a field such as `content`, a string over 1 KiB): the metadata boundary',
    });
  answers.push({
    status: 503,
    code: 'SVC-ADMIN-503',
    when: 'the server is shutting down, or cannot reach the identity provider to verify a single sign-on token',
  });
  return answers.sort((a, b) => a.status - b.status);
}

/** The gateway front door (src/server/gateway/front-door.ts) answers with gateway keys, not admin tokens. */
export const FRONT_DOOR_ERRORS: ErrorAnswer[] = [
  {
    status: 400,
    code: 'SVC-ADMIN-400',
    when: 'a JSON body that does not parse, `max_tokens` not a whole number >= 0, a body without a Content-Type',
  },
  {
    status: 401,
    code: 'SVC-ADMIN-401',
    when: 'no gateway key, or one that is unknown, revoked or expired, or a secret a rotation replaced once its grace ended',
  },
  { status: 404, code: 'SVC-ADMIN-404', when: 'the appliance has no such workload' },
  { status: 413, code: 'SVC-ADMIN-413', when: 'the request body is over 1 MiB' },
  {
    status: 429,
    code: 'SVC-ADMIN-429',
    when:
      "the key's quota or money budget is reached; `Retry-After` says when to retry (a budget: the end of the UTC day or month), " +
      'absent when waiting cannot help (the quota never allows the call; a budgeted key calling an unpriced model, or one call costing more than the budget)',
  },
  { status: 503, code: 'SVC-ADMIN-503', when: 'the server is shutting down' },
];
