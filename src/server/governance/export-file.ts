import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ExportFormat } from '../../contract/index.js';
import { csvHeader, csvRecord, type CsvColumn } from './csv.js';
import type { Row } from './keyset.js';

export interface ExportFile { stream: Readable; filename: string; contentType: string }

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8; header=present',
  jsonl: 'application/x-ndjson',
};

/** audit-20261121T093000Z.csv */
export const exportFilename = (base: string, format: ExportFormat, nowMs: number): string =>
  `${base}-${new Date(nowMs).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z.${format}`;

/**
 * A download streamed in constant memory: one batch of rows is read and encoded only when the
 * response has room for it (Readable.from pulls on demand), and the event loop gets a turn
 * between batches so a long export does not starve other requests.
 */
export function exportFile<E>(o: {
  base: string;
  format: ExportFormat;
  nowMs: number;
  batches: Iterable<Row[]>;
  toEntry: (r: Row) => E;
  columns: CsvColumn<E>[];
}): ExportFile {
  async function* encode(): AsyncGenerator<string> {
    if (o.format === 'csv') yield csvHeader(o.columns);
    for (const batch of o.batches) {
      let chunk = '';
      for (const row of batch) {
        const entry = o.toEntry(row);
        chunk += o.format === 'csv' ? csvRecord(o.columns, entry) : `${JSON.stringify(entry)}\n`;
      }
      yield chunk;
      await nextTurn();
    }
  }
  return {
    stream: Readable.from(encode(), { objectMode: false }),
    filename: exportFilename(o.base, o.format, o.nowMs),
    contentType: CONTENT_TYPES[o.format],
  };
}
