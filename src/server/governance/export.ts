import type { ExportFormat } from '../../contract/index.js';
import { recordAudit } from '../audit.js';
import type { HandlerContext } from '../http/route-kit.js';
import type { CsvColumn } from './csv.js';
import { exportFile, type ExportFile } from './export-file.js';
import { filterDetails, normalizeFilters, type TableSpec } from './filters.js';
import { maxSeqOf, scanBatches, type Row } from './keyset.js';

const BATCH_ROWS = 1000;

/**
 * Starts an export, oldest first (the order an auditor reads a file in). The export is audited
 * first and the file then covers every matching row up to that moment, so an audit export whose
 * filters match it includes its own `audit.export` entry as the last row; rows written while the
 * file streams are left out.
 */
export function startExport<E>(
  ctx: HandlerContext,
  spec: TableSpec,
  q: { format: ExportFormat } & Record<string, unknown>,
  toEntry: (r: Row) => E,
  columns: CsvColumn<E>[],
): ExportFile {
  const { db, principal } = ctx;
  const nowMs = Date.now();
  recordAudit(db, {
    actor: { subject: principal.subject, role: principal.role },
    action: `${spec.kind}.export`,
    target: { type: spec.kind, id: null },
    outcome: 'success',
    status: 200,
    request_id: ctx.requestId,
    source_ip: ctx.sourceIp,
    details: { format: q.format, filters: filterDetails(spec, q) },
    at_ms: nowMs,
  });
  const maxSeq = maxSeqOf(db, spec);
  return exportFile({
    base: spec.kind,
    format: q.format,
    nowMs,
    batches: scanBatches(db, spec, normalizeFilters(spec, q), maxSeq, BATCH_ROWS),
    toEntry,
    columns,
  });
}
