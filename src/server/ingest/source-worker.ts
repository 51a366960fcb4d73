// The worker thread that reads one connector source (./read-in-worker.ts starts it): counting the
// rows of a large SQLite file is one long synchronous call, which on the server's own thread would
// hold every request for as long.
import { parentPort, workerData } from 'node:worker_threads';
import { readSource, SourceReadError } from './sources.js';
import type { SourceReadJob, SourceReadReply } from './read-in-worker.js';

const { connector, source, maxEntries } = workerData as SourceReadJob;
let reply: SourceReadReply;
try {
  // the parent ends this thread to abort: nothing here needs a signal of its own
  reply = {
    ok: true,
    result: await readSource(connector, source, { maxEntries, signal: new AbortController().signal }),
  };
} catch (err) {
  reply = { ok: false, sourceError: err instanceof SourceReadError, message: (err as Error)?.message ?? String(err) };
}
parentPort!.postMessage(reply);
