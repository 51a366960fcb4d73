import type { FastifyInstance } from 'fastify';
import { routes, type RouteName } from '../../contract/index.js';
import type { GroupContext, GroupFactory, Handlers, RouteGroup } from './route-kit.js';

/**
 * Registers each area (src/server/routes/index.ts) as a fastify plugin of its own, so that its
 * routes, hooks and parsers stay in its scope, and returns them for the server to close. Needs the
 * audited-routes plugin registered first. Every contract route must be served by one area.
 */
export async function registerAreas(
  app: FastifyInstance,
  g: Omit<GroupContext, 'app'>,
  areas: GroupFactory[],
): Promise<RouteGroup[]> {
  const groups: RouteGroup[] = [];
  for (const makeArea of areas) {
    await app.register(async (scope) => {
      const group = makeArea({ ...g, app: scope });
      groups.push(group);
      for (const [name, handler] of Object.entries(group.handlers) as [RouteName, Handlers[RouteName]][]) {
        scope.auditedRoute(name, handler);
      }
    });
  }
  const missing = Object.keys(routes).filter((name) => !groups.some((x) => name in x.handlers));
  if (missing.length) throw new Error(`no handler for route ${missing.join(', ')}`);
  return groups;
}
