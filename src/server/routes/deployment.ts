import type { GroupFactory } from '../http/route-kit.js';
import { hostFactsReader } from '../host/facts.js';
import { buildDeployment } from '../host/deployment-status.js';
import { buildInstallPlan } from '../host/install-plan.js';
import { buildSettings } from '../host/settings.js';
import { modelCatalog } from '../models/catalog.js';

export const deploymentGroup: GroupFactory = ({ db, config, options }) => {
  const hostFacts = hostFactsReader(options.dataDir);
  const catalog = modelCatalog(config);
  return {
    handlers: {
      deployment: {
        allow: 'any role',
        audit: null,
        run: () => ({ body: buildDeployment(config, hostFacts(), db, catalog.list()) }),
      },
      installPlan: {
        allow: 'any role',
        audit: null,
        run: () => ({ body: buildInstallPlan(config, hostFacts(), db, catalog.list()) }),
      },
      settings: { allow: 'any role', audit: null, run: () => ({ body: buildSettings(config, db, options.dataDir) }) },
    },
  };
};
