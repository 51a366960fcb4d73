/**
 * Follows every checkpoint list answer the dashboard reads (the audit screen's and the overview's
 * `listAuditCheckpoints`, as served) and moves the kept checkpoint forward by a consistency proof
 * (src/dashboard/audit-trail/audit-chain-advance.ts): one step at a time, each answer once. A step
 * that kept a checkpoint or found a fork redraws the screens that read that answer, so that the
 * page check (which decides what the headers say) runs again on what is kept now.
 */
import type { ApiClient } from '../../client/api-client.js';
import type { PinnedAuditKey } from '../../audit-chain/keys-file.js';
import { advanceKeptCheckpoint } from '../audit-trail/audit-chain-advance.js';
import { patchEntry, type ResourceStore } from '../state/resources.js';

const CHECKPOINT_ROUTE = 'listAuditCheckpoints';

/** Starts following; returns the stop. */
export function followKeptCheckpoint(o: {
  resources: ResourceStore;
  client: ApiClient;
  auditKey?: PinnedAuditKey;
  /** keeps a fork's evidence, returns the file (DashboardOptions.writeFork) */
  writeFork?: (evidence: string, foundAt: string) => Promise<string>;
}): () => void {
  const tried = new WeakSet<object>();
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const check = () => {
    for (const [key, entry] of Object.entries(o.resources.getState().entries)) {
      const served = entry.served;
      if (!key.startsWith(CHECKPOINT_ROUTE) || served === null || typeof served !== 'object' || tried.has(served))
        continue;
      tried.add(served);
      running = running.then(async () => {
        if (stopped) return;
        try {
          const step = await advanceKeptCheckpoint(served, o);
          // the same answer, drawn again: the page check reads the memory the step changed
          if (step !== 'nothing' && !stopped && o.resources.getState().entries[key]?.served === served)
            patchEntry(o.resources, key, {});
        } catch {
          // the proof could not be asked for (the connection, a sign-in): the answer is tried again when it changes
          tried.delete(served);
        }
      });
    }
  };
  check();
  const unsubscribe = o.resources.subscribe(check);
  return () => {
    stopped = true;
    unsubscribe();
  };
}
