import * as z from 'zod';
import { API_PREFIX, routes, type RouteDef } from './routes.js';
import { Problem } from './common.js';

const json = (s: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(s, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;

const toOpenApiPath = (p: string) => API_PREFIX + p.replace(/:([A-Za-z_]+)/g, '{$1}');

function parameters(def: RouteDef) {
  const out: unknown[] = [];
  for (const [where, schema] of [['path', def.params], ['query', def.query]] as const) {
    if (!schema) continue;
    const js = json(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: s });
    }
  }
  return out;
}

/** The OpenAPI 3.1 document, generated from the same zod schemas the server validates with. */
export function buildOpenApi(version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  const problem = { content: { 'application/problem+json': { schema: json(Problem, 'output') } } };
  for (const def of Object.values(routes) as RouteDef[]) {
    const op: Record<string, unknown> = {
      operationId: def.name,
      summary: def.summary,
      ...(def.action ? { 'x-action': def.action } : {}),
      'x-mutates': def.mutates,
      security: [{ bearer: [] }],
      parameters: parameters(def),
      responses: {
        [def.status]: def.response === 'file'
          ? { description: 'file download', content: { 'text/csv': {}, 'application/x-ndjson': {} } }
          : { description: 'success', content: { 'application/json': { schema: json(def.response, 'output') } } },
        default: { description: 'problem', ...problem },
      },
    };
    if (def.body) op.requestBody = { required: true, content: { 'application/json': { schema: json(def.body, 'input') } } };
    (paths[toOpenApiPath(def.path)] ??= {})[def.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Appliance Administration API', version },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
