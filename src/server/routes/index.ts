import type { GroupFactory } from '../http/route-kit.js';
import { sessionGroup } from './session.js';
import { connectorsGroup } from './connectors.js';
import { channelsGroup } from './channels.js';
import { gatewayGroup } from './gateway.js';
import { modelsGroup } from './models.js';
import { governanceGroup } from './governance.js';
import { budgetsGroup } from './budgets.js';
import { deploymentGroup } from './deployment.js';
import { identityGroup } from './identity.js';

/**
 * Every area of the server, each registered as a fastify plugin of its own (http/areas.ts). An area
 * file declares each of its contract routes by name (src/contract/route-meta.ts gives the method,
 * path and schemas): who may call it, its audit action and target, and its handler.
 */
export const routeGroups: GroupFactory[] = [
  sessionGroup,
  connectorsGroup,
  channelsGroup,
  gatewayGroup,
  modelsGroup,
  governanceGroup,
  budgetsGroup,
  deploymentGroup,
  identityGroup,
];
