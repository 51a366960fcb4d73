import * as z from 'zod';
import { API_PREFIX, routes, type RouteArea, type RouteDef } from './routes.js';
import { Problem } from './common.js';
import { GatewayCallResult } from './gateway.js';
import { FRONT_DOOR_ERRORS, routeErrors, type ErrorAnswer } from './route-errors.js';
import { OpenApiComponents } from './openapi-components.js';

const json = (s: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(s, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;

const toOpenApiPath = (p: string) => API_PREFIX + p.replace(/:([A-Za-z_]+)/g, '{$1}');
const pascal = (name: string) => name[0].toUpperCase() + name.slice(1);

function parameters(def: RouteDef) {
  const out: unknown[] = [];
  for (const [where, schema] of [
    ['path', def.params],
    ['query', def.query],
  ] as const) {
    if (!schema) continue;
    const js = json(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: s });
    }
  }
  return out;
}

const ETAG = { description: 'the version of this answer, for If-None-Match', schema: { type: 'string' } };
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'the ETag of the answer the caller holds: unchanged, the answer is 304 with no body (cheap polling)',
};
const RETRY_AFTER = { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } };

/** Headers that come with an error answer, by status. */
const ERROR_HEADERS: Partial<Record<ErrorAnswer['status'], Record<string, unknown>>> = {
  401: { 'WWW-Authenticate': { description: 'the Bearer challenge', schema: { type: 'string' } } },
  429: { 'Retry-After': RETRY_AFTER },
  503: { 'Retry-After': { ...RETRY_AFTER, required: true } },
};

/** The error answers, one per status; the problem's `status` and `code` are narrowed to what that answer carries. */
function errorResponses(answers: ErrorAnswer[], problem: { $ref: string }) {
  const byStatus = new Map<number, ErrorAnswer[]>();
  for (const a of answers) byStatus.set(a.status, [...(byStatus.get(a.status) ?? []), a]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => {
      const codes = [...new Set(list.map((a) => a.code))];
      const narrowed = {
        type: 'object',
        properties: { status: { const: status }, code: codes.length === 1 ? { const: codes[0] } : { enum: codes } },
        required: ['status', 'code'],
      };
      const description = list.map((a) => (codes.length > 1 ? `${a.code}: ${a.when}` : a.when)).join('; ');
      const headers = ERROR_HEADERS[list[0].status];
      return [
        String(status),
        {
          description,
          ...(headers ? { headers } : {}),
          content: { 'application/problem+json': { schema: { allOf: [problem, narrowed] } } },
        },
      ];
    }),
  );
}

const OTHER_PROBLEMS =
  'any other problem: 500 (an internal error, logged under the request id), 408 (a request too slow to arrive), ' +
  '431 (request headers too large)';

const TAGS: Record<RouteArea | 'gateway-front-door', string> = {
  identity: 'Who the caller is, and identity-provider checks',
  connectors: 'Connectors and their ingestion jobs',
  channels: 'Agent channels',
  gateway: 'Gateway keys, their quotas and usage',
  models: 'Models and the routing of workloads to them',
  governance: 'Audit trail, agent journal and agent budgets',
  deployment: 'This host: deployment status, install plan, settings',
  'gateway-front-door': 'Model calls with a gateway key (OpenAI-style)',
};

function adminOperation(def: RouteDef, c: OpenApiComponents, problem: { $ref: string }) {
  // every GET with a JSON answer carries an ETag, and If-None-Match that matches is a bodiless 304
  const polled = def.method === 'GET' && def.response !== 'file';
  const success =
    def.response === 'file'
      ? {
          description: 'file download (`Content-Disposition: attachment`)',
          content: {
            'text/csv': { schema: { type: 'string' } },
            'application/x-ndjson': { schema: { type: 'string' } },
          },
        }
      : {
          description: 'success',
          ...(polled ? { headers: { ETag: ETAG } } : {}),
          content: { 'application/json': { schema: c.ref(def.response, 'output', `${pascal(def.name)}Response`) } },
        };
  return {
    operationId: def.name,
    summary: def.summary,
    tags: [def.area],
    ...(def.action ? { 'x-action': def.action } : {}),
    'x-mutates': def.mutates,
    security: [{ bearer: [] }],
    parameters: [...parameters(def), ...(polled ? [IF_NONE_MATCH] : [])],
    ...(def.body
      ? {
          requestBody: {
            // a body that may be left out (rotateKey's: its grace has a default) says so
            required: !def.body.safeParse(undefined).success,
            content: { 'application/json': { schema: c.ref(def.body, 'input', `${pascal(def.name)}Request`) } },
          },
        }
      : {}),
    responses: {
      [def.status]: success,
      ...(polled
        ? {
            304: {
              description: 'not modified: the answer still has the ETag sent in If-None-Match',
              headers: { ETag: ETAG },
            },
          }
        : {}),
      ...errorResponses(routeErrors(def), problem),
      default: { description: OTHER_PROBLEMS, content: { 'application/problem+json': { schema: problem } } },
    },
  };
}

/** The gateway's front door (src/server/gateway/front-door.ts), which takes gateway keys. */
function frontDoorOperation(c: OpenApiComponents, problem: { $ref: string }) {
  return {
    operationId: 'gatewayCall',
    summary: 'Meter one model call to a workload (OpenAI-style; runs no model)',
    description:
      'Authenticates the gateway key, enforces its quota, resolves the workload to its model and meters the call. ' +
      'The body (at most 1 MiB, any content type) is never stored or logged; of a JSON body only `max_tokens` is ' +
      'read, for the output token estimate.',
    tags: ['gateway-front-door'],
    security: [{ gatewayKey: [] }],
    parameters: [
      { name: 'workload', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 100 } },
    ],
    requestBody: {
      required: false,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { max_tokens: { type: ['integer', 'null'], minimum: 0 } },
            additionalProperties: true,
          },
        },
      },
    },
    responses: {
      200: {
        description: 'the call, metered',
        content: { 'application/json': { schema: c.ref(GatewayCallResult, 'output', 'GatewayCallResult') } },
      },
      ...errorResponses(FRONT_DOOR_ERRORS, problem),
      default: { description: OTHER_PROBLEMS, content: { 'application/problem+json': { schema: problem } } },
    },
  };
}

const built = new Map<string, ReturnType<typeof build>>();

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the server validates with. Built
 * once per version: the contract does not change while the process runs, and rendering every
 * schema it exports is slow enough that each server start (and each test server) would feel it.
 */
export function buildOpenApi(version: string) {
  if (!built.has(version)) built.set(version, build(version));
  return built.get(version)!;
}

function build(version: string) {
  const c = new OpenApiComponents();
  const problem = c.ref(Problem, 'output', 'Problem');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of Object.values(routes) as RouteDef[]) {
    (paths[toOpenApiPath(def.path)] ??= {})[def.method.toLowerCase()] = adminOperation(def, c, problem);
  }
  paths['/v1/gateway/{workload}'] = { post: frontDoorOperation(c, problem) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Appliance Administration API',
      version,
      description:
        'Administration of an on-premises AI appliance, and the front door of its model gateway. Errors are ' +
        'RFC 9457 problem+json with a `code`; every error answer an operation can give is listed with its codes.',
      // the package is UNLICENSED (npm's word for proprietary), which SPDX names only as a LicenseRef
      license: { name: 'UNLICENSED: proprietary, no license is granted', identifier: 'LicenseRef-UNLICENSED' },
      contact: { name: 'appliance-admin maintainers' },
    },
    servers: [
      {
        url: '{scheme}://{host}:{port}',
        description: 'the appliance; `appliance-admin serve` listens on http://127.0.0.1:8080 unless told otherwise',
        variables: {
          scheme: { enum: ['http', 'https'], default: 'http' },
          host: { default: '127.0.0.1' },
          port: { default: '8080' },
        },
      },
    ],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'an admin token (`appliance-admin token issue`) or a single sign-on access token',
        },
        gatewayKey: { type: 'http', scheme: 'bearer', description: 'a gateway key secret (createKey)' },
      },
      schemas: c.schemas(),
    },
  };
}
