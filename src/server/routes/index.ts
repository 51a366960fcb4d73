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

/** Every area of the server, each registered as a fastify plugin of its own (http/areas.ts). */
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
