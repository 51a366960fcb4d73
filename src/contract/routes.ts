import type * as z from 'zod';
import { ROUTE_META, type RouteMeta, type RouteName, type RouteSchemas } from './route-meta.js';
import { identityRoutes } from './identity.js';
import { connectorRoutes } from './connectors.js';
import { channelRoutes } from './channels.js';
import { gatewayRoutes } from './gateway.js';
import { modelRoutes } from './models.js';
import { governanceRoutes } from './governance.js';
import { deploymentRoutes } from './deployment.js';

export { API_PREFIX, MUTATION_ACTIONS, ROUTE_META, type RouteArea, type RouteName } from './route-meta.js';

/** A whole route: what route-meta.ts says of it, with its schemas from its area module. */
export type RouteDef = RouteMeta & RouteSchemas;

const SCHEMAS = {
  ...identityRoutes,
  ...connectorRoutes,
  ...channelRoutes,
  ...gatewayRoutes,
  ...modelRoutes,
  ...governanceRoutes,
  ...deploymentRoutes,
};

type Routes = { [N in RouteName]: (typeof ROUTE_META)[N] & (typeof SCHEMAS)[N] };

/** Every route with its schemas, in route-meta.ts's order: the server, OpenAPI and the tests use it. */
export const routes = Object.fromEntries(
  (Object.keys(ROUTE_META) as RouteName[]).map((name) => [name, { ...ROUTE_META[name], ...SCHEMAS[name] }]),
) as Routes;

export type RouteResponse<N extends RouteName> = (typeof routes)[N]['response'] extends z.ZodType
  ? z.infer<Extract<(typeof routes)[N]['response'], z.ZodType>>
  : never;
