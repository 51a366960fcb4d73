import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Dispatcher } from 'undici';
import { sanitize } from '../text/sanitize.js';
import { toTransportError } from './errors.js';

export interface DownloadProgress {
  bytes: number;
  /** from Content-Length, when the server sent one (streamed exports usually do not) */
  total: number | null;
  /** newline characters so far (see DownloadResult.lines) */
  lines: number;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  sha256: string;
  /** newline characters seen: rows for jsonl, rows + header for csv without multi-line cells */
  lines: number;
  /** the server's suggested file name (Content-Disposition), sanitized */
  filename: string | null;
  contentType: string | null;
  requestId: string | undefined;
  /** an audit export's signed statement and head checkpoint headers, as sent (docs/audit-chain.md) */
  auditChain: { statement: string | null; checkpoint: string | null };
}

/**
 * The media types an export of each format may come as: what the reference server sends
 * (src/server/governance/export-file.ts) and the other registered or common names of the same
 * format. Anything else (an HTML page, text/plain, application/json, a generic octet-stream, no
 * Content-Type at all) is not an export the client can vouch for.
 */
const EXPORT_TYPES: Record<string, readonly string[]> = {
  csv: ['text/csv', 'application/csv', 'text/x-csv', 'text/comma-separated-values'],
  jsonl: [
    'application/x-ndjson',
    'application/ndjson',
    'application/jsonl',
    'application/x-jsonl',
    'application/jsonlines',
    'application/x-jsonlines',
  ],
};

/** Why `contentType` is not an export in `format`, or undefined when it is. */
export function exportTypeProblem(format: string, contentType: string | undefined): string | undefined {
  const accepted = EXPORT_TYPES[format];
  if (!accepted) return undefined; // a format the contract does not know: the server's answer decides
  const essence = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (accepted.includes(essence)) return undefined;
  const got = contentType ? `Content-Type ${sanitize(contentType, 100)}` : 'no Content-Type';
  return `${got}, where a ${format} export is ${accepted[0]}`;
}

const header = (h: Record<string, string | string[] | undefined>, n: string) => {
  const v = h[n];
  return Array.isArray(v) ? v[0] : v;
};

/** Writes a response body to `dest` (via `dest.part`, renamed when complete), hashing as it goes. */
export async function streamToFile(
  res: Dispatcher.ResponseData,
  dest: string,
  onProgress?: (p: DownloadProgress) => void,
  requestId?: string,
): Promise<DownloadResult> {
  const hash = createHash('sha256');
  const lengthHeader = Number(header(res.headers, 'content-length'));
  const total = Number.isFinite(lengthHeader) ? lengthHeader : null;
  let bytes = 0;
  let lines = 0;
  let lastReport = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      hash.update(chunk);
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      const now = Date.now();
      if (onProgress && now - lastReport >= 100) {
        lastReport = now;
        onProgress({ bytes, total, lines });
      }
      done(null, chunk);
    },
  });
  const part = `${dest}.part`;
  try {
    await pipeline(res.body, meter, createWriteStream(part, { mode: 0o600 }));
    await rename(part, dest);
  } catch (err) {
    await rm(part, { force: true });
    throw (err as NodeJS.ErrnoException).code?.startsWith('E') && (err as NodeJS.ErrnoException).syscall
      ? err
      : toTransportError(err);
  }
  onProgress?.({ bytes, total, lines });
  const disposition = header(res.headers, 'content-disposition') ?? '';
  const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  return {
    path: dest,
    bytes,
    sha256: hash.digest('hex'),
    lines,
    filename: m ? sanitize(safeDecode(m[1]), 200) : null,
    contentType: header(res.headers, 'content-type') ?? null,
    requestId,
    auditChain: {
      statement: header(res.headers, 'audit-export-statement') ?? null,
      checkpoint: header(res.headers, 'audit-checkpoint') ?? null,
    },
  };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
