import type { AuditSeal, AuditSealRequest } from '../../contract/index.js';
import { checkpointHeadOrRefuse } from '../audit-chain/checkpoints.js';
import type { Db } from '../db/sqlite-driver.js';
import type { HandlerResult } from '../http/route-kit.js';
import { auditEntryById } from './audit-trail.js';

/**
 * `POST /audit/seal` (docs/audit-chain.md, "Evidence packs"): the hash is recorded as the details of
 * an `audit.seal` entry, and a checkpoint of that entry, now the head, is signed in the same
 * transaction, as an export signs its own. The answer is both: whoever holds it can show the
 * appliance signed that this hash was presented, by whom and when, without asking it again.
 */
export function sealHash(db: Db, body: AuditSealRequest): HandlerResult {
  return {
    details: { sha256: body.sha256, purpose: body.purpose },
    afterAudit: (id): AuditSeal => {
      const { key: _, ...checkpoint } = checkpointHeadOrRefuse(db);
      const entry = auditEntryById(db, id);
      // the entry was written in this transaction, so it is the head the checkpoint signed
      if (!entry || entry.seq !== checkpoint.seq || entry.hash !== checkpoint.hash)
        throw new Error('the seal entry is not the signed head');
      return { entry, checkpoint };
    },
  };
}
