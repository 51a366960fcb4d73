import * as z from 'zod';
import * as common from './common.js';
import * as connectors from './connectors.js';
import * as channels from './channels.js';
import * as gateway from './gateway.js';
import * as models from './models.js';
import * as governance from './governance.js';
import * as deployment from './deployment.js';
import * as identity from './identity.js';

type JsonSchema = Record<string, unknown>;
const COMPONENTS = '#/components/schemas/';

/**
 * Named component schemas for a set of requests and responses. Every schema the contract
 * exports is named as it is exported (a schema exported twice keeps its first name), so a
 * resource nested in another (a key's Quota) is a $ref, not a copy; an operation's own schema
 * that the contract does not export is named after it (`fallback`). Only the components the
 * operations reach are kept.
 */
export class OpenApiComponents {
  private readonly registry = z.registry<{ id: string }>();
  private readonly roots = { input: new Set<string>(), output: new Set<string>() };

  constructor() {
    for (const mod of [common, connectors, channels, gateway, models, governance, deployment, identity]) {
      for (const [name, value] of Object.entries(mod)) {
        if (value instanceof z.ZodType && !this.registry.has(value)) this.registry.add(value, { id: name });
      }
    }
  }

  /** A $ref to `schema`, as a request body (`input`: defaults optional) or an answer (`output`). */
  ref(schema: z.ZodType, io: 'input' | 'output', fallback: string): { $ref: string } {
    if (!this.registry.has(schema)) this.registry.add(schema, { id: fallback });
    const id = this.registry.get(schema)!.id;
    this.roots[io].add(id);
    return { $ref: COMPONENTS + id };
  }

  /**
   * The components reached from the refs handed out. One schema is rendered once: should it be
   * both a request's and an answer's and render differently as each (a default, a non-strict
   * object), this throws rather than describe one of them wrongly.
   */
  schemas(): Record<string, JsonSchema> {
    const out: Record<string, JsonSchema> = {};
    for (const io of ['output', 'input'] as const) {
      const all = z.toJSONSchema(this.registry, {
        target: 'draft-2020-12',
        io,
        unrepresentable: 'any',
        uri: (id) => COMPONENTS + id,
      }).schemas as Record<string, JsonSchema>;
      for (const id of reachable(all, this.roots[io])) {
        const { $schema: _s, $id: _i, ...schema } = all[id];
        if (id in out && JSON.stringify(out[id]) !== JSON.stringify(schema))
          throw new Error(`schema ${id} is both a request and an answer and differs as each: export one for each`);
        out[id] = schema;
      }
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** The ids reachable from `roots` through $refs. */
function reachable(all: Record<string, JsonSchema>, roots: Set<string>): Set<string> {
  const seen = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENTS))
        add(value.slice(COMPONENTS.length));
      else visit(value);
    }
  };
  const add = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    visit(all[id]);
  };
  roots.forEach(add);
  return seen;
}
