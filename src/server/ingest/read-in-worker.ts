import { Worker } from 'node:worker_threads';
import type { ConnectorConfig, SourceConfig } from '../config.js';
import { SourceReadError, type ReadLimits, type ReadResult } from './sources.js';

export interface SourceReadJob {
  connector: ConnectorConfig;
  source: SourceConfig;
  maxEntries: number;
}

export type SourceReadReply = { ok: true; result: ReadResult } | { ok: false; sourceError: boolean; message: string };

/**
 * How to start the worker. In the bundle: its own entry point, dist/ingest-worker.js
 * (scripts/build.mjs), beside the chunk this code lives in. From source (tests, development): the
 * TypeScript file through tsx's API, as `--import tsx` does not reach a worker's entry on Node 20.
 */
function workerScript(): { script: string | URL; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) return { script: new URL('./ingest-worker.js', import.meta.url), eval: false };
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./source-worker.ts', import.meta.url).href;
  return {
    script: `import(${JSON.stringify(tsx)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}))`,
    eval: true,
  };
}

/**
 * Test seam: while set, the reader thread runs this code instead (evaluated), so that a test can
 * make it crash or exit as no source can make the real one do (a native abort, running out of memory).
 */
export const readerOverride: { code: string | null } = { code: null };

/**
 * readSource() in a worker thread of its own, so that a long read never holds the server's
 * event loop. Aborting ends the thread (a SQLite count cannot be interrupted from JavaScript
 * otherwise) and rejects with the signal's reason.
 */
export function readSourceInWorker(
  connector: ConnectorConfig,
  source: SourceConfig,
  limits: ReadLimits,
): Promise<ReadResult> {
  limits.signal.throwIfAborted();
  const { script, eval: isCode } = readerOverride.code ? { script: readerOverride.code, eval: true } : workerScript();
  const job: SourceReadJob = { connector, source, maxEntries: limits.maxEntries };
  const worker = new Worker(script, { workerData: job, eval: isCode });
  return new Promise<ReadResult>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      limits.signal.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      settle(() => reject(limits.signal.reason));
      // a thread inside SQLite stops only when that call returns: shutdown does not wait for it
      worker.unref();
      worker.terminate().catch(() => {}); // it ends either way; nobody waits for it
    };
    limits.signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (reply: SourceReadReply) =>
      settle(() =>
        reply.ok
          ? resolve(reply.result)
          : reject(reply.sourceError ? new SourceReadError(reply.message) : new Error(reply.message)),
      ),
    );
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) =>
      settle(() => reject(new Error(`the source reader stopped (exit code ${code}) without an answer`))),
    );
  });
}
