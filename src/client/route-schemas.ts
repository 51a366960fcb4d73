import {
  ROUTE_META,
  type AreaRoutes,
  type RouteArea,
  type RouteName,
  type RouteSchemas,
} from '../contract/route-meta.js';

// Each area's schemas are built when a route of it is first called, not when the dashboard
// starts: its first frame needs only the session's and the first screen's (docs/performance.md).
// The bundle keeps these modules in the one file, initialised on first use.
const AREAS: { [A in RouteArea]: () => Promise<AreaRoutes<A>> } = {
  identity: async () => (await import('../contract/identity.js')).identityRoutes,
  connectors: async () => (await import('../contract/connectors.js')).connectorRoutes,
  channels: async () => (await import('../contract/channels.js')).channelRoutes,
  gateway: async () => (await import('../contract/gateway.js')).gatewayRoutes,
  models: async () => (await import('../contract/models.js')).modelRoutes,
  governance: async () => (await import('../contract/governance.js')).governanceRoutes,
  deployment: async () => (await import('../contract/deployment.js')).deploymentRoutes,
};

const loaded = new Map<RouteArea, Promise<Partial<Record<RouteName, RouteSchemas>>>>();

/** The schemas of one route, its area's module loaded on first use. */
export async function routeSchemas(name: RouteName): Promise<RouteSchemas> {
  const area = ROUTE_META[name].area;
  let schemas = loaded.get(area);
  if (!schemas) {
    schemas = AREAS[area]() as Promise<Partial<Record<RouteName, RouteSchemas>>>;
    loaded.set(area, schemas);
  }
  return (await schemas)[name]!;
}
