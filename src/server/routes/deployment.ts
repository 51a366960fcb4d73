import type { GroupFactory } from '../http/route-kit.js';
import { hostFactsReader } from '../host/facts.js';
import { buildDeployment } from '../host/deployment-status.js';
import { buildInstallPlan } from '../host/install-plan.js';
import { buildSettings } from '../host/settings.js';
import { modelCatalog } from '../models/catalog.js';
import { currentFingerprint } from '../audit-chain/keys.js';

export const deploymentGroup: GroupFactory = ({ db, config, options }) => {
  const hostFacts = hostFactsReader(options.dataDir);
  const catalog = modelCatalog(config);
  // so that the deployment and settings screens can show which key signs the audit checkpoints
  const auditKey = () => ({ audit_key_fingerprint: currentFingerprint(db) });
  return {
    handlers: {
      deployment: {
        run: () => ({
          body: { ...buildDeployment(config, hostFacts(), db, catalog.list()), ...auditKey() },
        }),
      },
      installPlan: { run: () => ({ body: buildInstallPlan(config, hostFacts(), db, catalog.list()) }) },
      settings: { run: () => ({ body: { ...buildSettings(config, db, options.dataDir), ...auditKey() } }) },
    },
  };
};
