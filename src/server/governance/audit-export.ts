import type { AuditExportQuery } from '../../contract/index.js';
import type { HandlerContext } from '../http/route-kit.js';
import { checkpointHeadOrRefuse, type SignedHead } from '../audit-chain/checkpoints.js';
import { exportStatement } from '../audit-chain/export-statement.js';
import { headOnly } from '../audit-chain/checkpoint-note.js';
import { canonicalLine } from '../../audit-chain/canonical.js';
import { iso } from '../ids.js';
import { auditCsvColumns, auditSpec, toAuditEntry } from './audit-trail.js';
import { startExport, type ExportSnapshot } from './export.js';
import { filterDetails, matchWhere, normalizeFilters, type Filters } from './filters.js';
import type { Db } from '../db/sqlite-driver.js';

/** The audit trail in write order, as its hash chain reads (filters.ts `order`). */
const auditExportSpec = { ...auditSpec, order: 'seq' } as const;

/**
 * An audit export is a fixed snapshot of the chain (docs/audit-chain.md): a checkpoint of the head
 * is signed with the export's own entry, the file stops at its seq, and the headers carry it
 * (compact JSON, ASCII) and the signed statement of what the file holds: its filters, count, first
 * and last entries, and a digest of a selection. Verifiers believe only the statement;
 * Audit-Export-Filtered stays for readers of before it, and says what the statement says.
 *
 * When nothing but exports' own entries and the minute counts of refused requests came after the
 * newest checkpoint, that checkpoint is the snapshot instead (checkpoints.ts EXPORT_REUSES_OVER): the
 * file stops there, without this export's own entry, and no checkpoint is signed for it, so that
 * exports of an unchanged trail do not sign one each. The statement is then dated now, the time it is
 * signed: a kept checkpoint newer than its head is a trail cut since, never "exported before".
 */
export async function startAuditExport(ctx: HandlerContext, q: AuditExportQuery) {
  const named = filterDetails(auditSpec, q);
  let head: SignedHead | undefined;
  let at = '';
  const snapshot = (db: Db): ExportSnapshot => {
    // an export whose filters name the entries written since the newest checkpoint (who exported,
    // the refused requests: by action, actor, request id or text) ends at the head, not before what
    // it asks for; the whole trail, or a time range, ends at that checkpoint as documented
    const filters = normalizeFilters(auditSpec, q);
    const names = Object.keys(filters.equals).length > 0 || filters.prefix !== undefined || filters.q !== undefined;
    const reuse = !names || ((after: number) => !selectsAfter(db, filters, after));
    const signed = checkpointHeadOrRefuse(db, { reuse });
    head = signed;
    at = signed.reused ? iso(Date.now()) : signed.at;
    return { maxSeq: signed.seq, headers: {} };
  };
  const file = startExport(ctx, auditExportSpec, q, toAuditEntry, auditCsvColumns, snapshot, canonicalLine);
  if (!head) return file; // a HEAD request: no export took place
  const statement = await exportStatement(ctx.db, auditExportSpec, {
    filters: normalizeFilters(auditSpec, q),
    named,
    head,
    at,
    format: q.format,
    requestId: ctx.requestId,
    key: head.key,
  });
  return {
    ...file,
    headers: {
      // the chain head only: the note (with its non-ASCII signature lines) is served by the checkpoints route
      'Audit-Checkpoint': JSON.stringify(headOnly(head)),
      'Audit-Export-Statement': JSON.stringify(statement),
      'Audit-Export-Filtered': String(Object.keys(named).length > 0),
    },
  };
}

/** Whether any entry after seq `after` matches the filters (fewer than a checkpoint's 1,000 entries are read). */
function selectsAfter(db: Db, f: Filters, after: number): boolean {
  const { where, params } = matchWhere(auditSpec, f);
  const sql = `SELECT EXISTS (SELECT 1 FROM audit${where ? `${where} AND` : ' WHERE'} seq > @after)`;
  return (
    db
      .prepare(sql)
      .pluck()
      .get({ ...params, after }) === 1
  );
}
