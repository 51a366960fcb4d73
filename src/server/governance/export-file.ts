import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ExportFormat } from '../../contract/index.js';

export interface ExportFile {
  stream: Readable;
  filename: string;
  contentType: string;
}

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8; header=present',
  jsonl: 'application/x-ndjson',
};

/** audit-20261121T093000Z.csv */
const exportFilename = (base: string, format: ExportFormat, nowMs: number): string =>
  `${base}-${new Date(nowMs).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z.${format}`;

/**
 * A download streamed in constant memory: one chunk (a batch of encoded rows) is produced only when
 * the response has room for it (Readable.from pulls on demand), and the event loop gets a turn
 * between chunks so a long export does not starve other requests.
 */
export function exportFile(o: {
  base: string;
  format: ExportFormat;
  nowMs: number;
  chunks: Iterable<string>;
}): ExportFile {
  async function* encode(): AsyncGenerator<string> {
    for (const chunk of o.chunks) {
      // an empty chunk (a searched window with no match) is only a turn for the other requests
      if (chunk) yield chunk;
      await nextTurn();
    }
  }
  return {
    stream: Readable.from(encode(), { objectMode: false }),
    filename: exportFilename(o.base, o.format, o.nowMs),
    contentType: CONTENT_TYPES[o.format],
  };
}
