import * as z from 'zod';
import { API_PREFIX, routes, type RouteDef } from './routes.js';
import { Problem } from './common.js';

const json = (s: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(s, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;

const toOpenApiPath = (p: string) => API_PREFIX + p.replace(/:([A-Za-z_]+)/g, '{$1}');

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

/** The OpenAPI 3.1 document, generated from the same zod schemas the server validates with. */
export function buildOpenApi(version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  const problem = { content: { 'application/problem+json': { schema: json(Problem, 'output') } } };
  for (const def of Object.values(routes) as RouteDef[]) {
    // every GET with a JSON answer carries an ETag, and If-None-Match that matches is a bodiless 304
    const polled = def.method === 'GET' && def.response !== 'file';
    const op: Record<string, unknown> = {
      operationId: def.name,
      summary: def.summary,
      ...(def.action ? { 'x-action': def.action } : {}),
      'x-mutates': def.mutates,
      security: [{ bearer: [] }],
      parameters: [...parameters(def), ...(polled ? [IF_NONE_MATCH] : [])],
      responses: {
        [def.status]:
          def.response === 'file'
            ? { description: 'file download', content: { 'text/csv': {}, 'application/x-ndjson': {} } }
            : {
                description: 'success',
                ...(polled ? { headers: { ETag: ETAG } } : {}),
                content: { 'application/json': { schema: json(def.response, 'output') } },
              },
        ...(polled
          ? {
              304: {
                description: 'not modified: the answer still has the ETag sent in If-None-Match',
                headers: { ETag: ETAG },
              },
            }
          : {}),
        default: { description: 'problem', ...problem },
      },
    };
    if (def.body)
      op.requestBody = { required: true, content: { 'application/json': { schema: json(def.body, 'input') } } };
    (paths[toOpenApiPath(def.path)] ??= {})[def.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Appliance Administration API', version },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
