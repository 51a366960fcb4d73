import type { AuditExportQuery } from '../../contract/index.js';
import type { HandlerContext } from '../http/route-kit.js';
import { checkpointHead } from '../audit-chain/checkpoints.js';
import { canonicalLine } from '../audit-chain/hash.js';
import { auditCsvColumns, auditSpec, toAuditEntry } from './audit-trail.js';
import { startExport, type ExportSnapshot } from './export.js';
import { filterDetails } from './filters.js';
import type { Db } from '../db/open.js';

/** The audit trail in write order, as its hash chain reads (filters.ts `order`). */
const auditExportSpec = { ...auditSpec, order: 'seq' } as const;

/**
 * An audit export is a fixed snapshot of the chain (docs/audit-chain.md): a checkpoint of the head
 * is signed with the export's own entry, the file stops at its seq, and the headers carry it
 * (compact JSON, ASCII) and whether a filter narrowed the file, which then proves its entries
 * unaltered but not the trail complete.
 */
export function startAuditExport(ctx: HandlerContext, q: AuditExportQuery) {
  const filtered = Object.keys(filterDetails(auditSpec, q)).length > 0;
  const snapshot = (db: Db): ExportSnapshot => {
    const checkpoint = checkpointHead(db);
    if (!checkpoint) throw new Error('no audit signing key is attached to this database');
    return {
      maxSeq: checkpoint.seq,
      headers: { 'Audit-Checkpoint': JSON.stringify(checkpoint), 'Audit-Export-Filtered': String(filtered) },
    };
  };
  return startExport(ctx, auditExportSpec, q, toAuditEntry, auditCsvColumns, snapshot, canonicalLine);
}
