import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { recordAudit } from '../audit.js';
import { ApiError } from '../errors.js';
import type { GroupContext, GroupFactory } from '../http/route-kit.js';
import { hostFactsReader } from '../host/facts.js';
import { buildDeployment } from '../host/deployment-status.js';
import { buildInstallPlan } from '../host/install-plan.js';
import { buildSettings } from '../host/settings.js';
import { modelCatalog } from '../models/catalog.js';
import { currentFingerprint } from '../audit-chain/keys.js';

/**
 * Settings are read only: any write is 405 with Allow, for every role, and the attempt is audited.
 * Answered on request, before the body is read: whatever the body, the answer is the same.
 */
function refuseSettingsWrites(
  app: FastifyInstance,
  db: Db,
  authenticateWriter: GroupContext['authenticateWriter'],
): void {
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'],
    url: `${API_PREFIX}/settings`,
    onRequest: async (req) => {
      req.mutation = { action: 'settings.update', allow: 'any role', target: () => ({ type: 'settings', id: null }) };
      // a role-less SSO token: 403, audited as denied; past its caller's rate: 429, not audited alone
      const p = await authenticateWriter(req, 'settings.update');
      req.audited = true;
      recordAudit(db, {
        actor: { subject: p.subject, role: p.role },
        action: 'settings.update',
        target: { type: 'settings', id: null },
        outcome: 'failed',
        status: 405,
        request_id: String(req.id),
        source_ip: req.ip ?? null,
        details: { method: req.method },
      });
      throw new ApiError(405, 'settings are read only', { headers: { Allow: 'GET, HEAD' } });
    },
    handler: async () => undefined,
  });
}

export const deploymentGroup: GroupFactory = ({ app, db, config, options, authenticateWriter }) => {
  refuseSettingsWrites(app, db, authenticateWriter);
  const hostFacts = hostFactsReader(options.dataDir);
  const catalog = modelCatalog(config);
  // so that the deployment and settings screens can show which key signs the audit checkpoints
  const auditKey = () => ({ audit_key_fingerprint: currentFingerprint(db) });
  return {
    handlers: {
      deployment: {
        allow: 'any role',
        audit: null,
        run: () => ({
          body: { ...buildDeployment(config, hostFacts(), db, catalog.list()), ...auditKey() },
        }),
      },
      installPlan: {
        allow: 'any role',
        audit: null,
        run: () => ({ body: buildInstallPlan(config, hostFacts(), db, catalog.list()) }),
      },
      settings: {
        allow: 'any role',
        audit: null,
        run: () => ({ body: { ...buildSettings(config, db, options.dataDir), ...auditKey() } }),
      },
    },
  };
};
