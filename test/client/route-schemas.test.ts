import { describe, expect, it } from 'vitest';
import { MUTATION_ACTIONS, ROUTE_META, type RouteName } from '../../src/contract/route-meta.js';
import { routes } from '../../src/contract/routes.js';
import { routeSchemas } from '../../src/client/route-schemas.js';

/**
 * The route table is split in two: route-meta.ts (no zod, what the dashboard knows at start) and
 * each area module's schemas, loaded by the client on a route's first call. Both views must be
 * the one contract the server serves.
 */
describe('route metadata and schemas', () => {
  const names = Object.keys(routes) as RouteName[];

  it('name the same routes, in the same order', () => {
    expect(Object.keys(ROUTE_META)).toEqual(names);
    expect(names.length).toBe(38);
  });

  it("the client's per-area schemas are the server's own, route by route", async () => {
    for (const name of names) {
      const { area, ...meta } = ROUTE_META[name];
      const def = routes[name];
      expect(def, name).toMatchObject(meta);
      const schemas = await routeSchemas(name);
      expect(Object.keys(schemas).sort(), name).toEqual(
        ['body', 'params', 'query', 'response'].filter((k) => k in def),
      );
      for (const k of ['params', 'query', 'body', 'response'] as const)
        expect(schemas[k], `${name}.${k} (${area})`).toBe((def as Record<string, unknown>)[k]);
    }
  });

  it('list every mutation capability once', () => {
    const mutations = names
      .filter((n) => ROUTE_META[n].mutates)
      .map((n) => (ROUTE_META[n] as { action?: string }).action);
    expect(mutations.every((a) => typeof a === 'string')).toBe(true);
    expect(MUTATION_ACTIONS).toEqual(mutations);
    expect(new Set(MUTATION_ACTIONS).size).toBe(MUTATION_ACTIONS.length);
  });
});
