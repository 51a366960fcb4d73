import type { ExportFormat } from '../../contract/index.js';
import { recordAudit } from '../audit.js';
import type { Db } from '../db/sqlite-driver.js';
import type { HandlerContext } from '../http/route-kit.js';
import { csvHeader, csvRecordEncoder, type CsvColumn } from './csv.js';
import { fastCsv } from './csv-fast.js';
import { exportFile, type ExportFile } from './export-file.js';
import { filterDetails, normalizeFilters, type Filters, type TableSpec } from './filters.js';
import { aggregateBatches, maxSeqOf, scanBatches, type Row } from './keyset.js';

/**
 * Rows per query and per chunk written. Fewer live rows at a time keep V8's young generation from
 * growing to its limit; smaller batches cost a little in rows per second. The sizes tried and their
 * memory are in docs/performance.md (test/bench/server-export-memory).
 */
const BATCH_ROWS = 250;

/**
 * Rows per batch of CSV, which SQLite joins into one string (no row objects): 500 gave 1.15–1.3x
 * the rows per second of 250 and of 1000, interleaved runs on one host (docs/performance.md).
 */
const CSV_BATCH_ROWS = 500;

/**
 * What an export covers, fixed in the transaction that audits it: rows up to `maxSeq`, and the
 * headers that say so (an audit export's checkpoint).
 */
export interface ExportSnapshot {
  maxSeq: number;
  headers: Record<string, string>;
}

const headSnapshot = (spec: TableSpec) => (db: Db) => ({ maxSeq: maxSeqOf(db, spec), headers: {} });

/**
 * Starts an export, oldest first (the order an auditor reads a file in). The export is audited
 * first and the file then covers every matching row up to that moment (`snapshot`, in the same
 * transaction), so an audit export whose filters match it includes its own `audit.export` entry as
 * the last row, unless its snapshot is an earlier checkpoint (audit-export.ts: nothing new since it);
 * rows written while the file streams are left out.
 */
export function startExport<E>(
  ctx: HandlerContext,
  spec: TableSpec,
  q: { format: ExportFormat } & Record<string, unknown>,
  toEntry: (r: Row) => E,
  columns: CsvColumn[],
  snapshot: (db: Db) => ExportSnapshot = headSnapshot(spec),
  /** a JSON Lines line of an entry, when not JSON.stringify's (the audit trail's canonical one) */
  toLine: (e: E) => string = (e) => JSON.stringify(e),
): ExportFile & { headers: Record<string, string> } {
  const { db, principal } = ctx;
  const nowMs = Date.now();
  // A HEAD request gets the file's headers only, and fastify drains whatever stream it is given:
  // an empty one, so that no row is read. No export took place, so none is audited.
  if (ctx.head) return { ...exportFile({ base: spec.kind, format: q.format, nowMs, chunks: [] }), headers: {} };
  const { maxSeq, headers } = db
    .transaction(() => {
      recordAudit(db, {
        actor: { subject: principal.subject, role: principal.role },
        action: `${spec.kind}.export`,
        target: { type: spec.kind, id: null },
        outcome: 'success',
        status: 200,
        request_id: ctx.requestId,
        source_ip: ctx.sourceIp,
        details: { format: q.format, filters: filterDetails(spec, q), ...(q.purpose ? { purpose: q.purpose } : {}) },
        at_ms: nowMs,
      });
      return snapshot(db);
    })
    .immediate();
  const filters = normalizeFilters(spec, q);
  const file = exportFile({
    base: spec.kind,
    format: q.format,
    nowMs,
    chunks:
      q.format === 'csv'
        ? csvChunks(ctx.db, spec, filters, maxSeq, columns)
        : jsonlChunks(ctx.db, spec, filters, maxSeq, (r) => toLine(toEntry(r))),
  });
  return { ...file, headers };
}

/**
 * CSV from raw rows (no entry objects), the records assembled by SQLite (csv-fast.ts): each batch
 * comes as one string, which is written as it is when every record in it is vouched for, and is
 * otherwise encoded row by row from the plain values. About 1.4x the rows per second of records
 * joined with `||` and read row by row, which was 2.3x encoding entry objects (docs/performance.md).
 */
function* csvChunks(db: Db, spec: TableSpec, f: Filters, maxSeq: number, columns: CsvColumn[]): Generator<string> {
  yield csvHeader(columns);
  const fast = fastCsv(columns);
  const generic = csvRecordEncoder(columns, 0);
  const plain = columns.map((c) => c.sql).join(', ');
  const batches = aggregateBatches(db, spec, f, {
    maxSeq,
    batchSize: CSV_BATCH_ROWS,
    select: `${fast.record} AS record`,
    aggregate: `group_concat(record, ''), count(*)`,
  });
  if (batches) {
    for (const batch of batches) {
      const [text, count] = batch.value as [string | null, number];
      if (count === 0) continue;
      yield text !== null && fast.vouches(text, count) ? text : batch.rows(plain).map(generic).join('');
    }
    return;
  }
  // a prefix filter matching several values: the rows merged in JavaScript, each record checked alone
  const plainRow = db.prepare(`SELECT ${plain} FROM ${spec.table} WHERE seq = ?`).raw(true);
  for (const batch of scanBatches(db, spec, f, {
    maxSeq,
    batchSize: BATCH_ROWS,
    select: `seq, ${spec.timeColumn}, ${fast.record}`,
  })) {
    let chunk = '';
    for (const [seq, , record] of batch) {
      if (typeof record === 'string' && fast.vouches(record, 1)) chunk += record;
      else {
        const row = plainRow.get(seq) as Row | undefined;
        if (row) chunk += generic(row);
      }
    }
    yield chunk;
  }
}

function* jsonlChunks(
  db: Db,
  spec: TableSpec,
  f: Filters,
  maxSeq: number,
  lineOf: (r: Row) => string,
): Generator<string> {
  for (const batch of scanBatches(db, spec, f, { maxSeq, batchSize: BATCH_ROWS })) {
    let chunk = '';
    for (const row of batch) chunk += `${lineOf(row)}\n`;
    yield chunk;
  }
}
