/**
 * The dashboard's kept checkpoint moved forward by a consistency proof (src/audit-chain/kept-advance.ts,
 * the scheme `audit verify --since` uses): the shell hands each checkpoint list answer here as it
 * arrives (src/dashboard/shell/kept-checkpoint.ts), and this asks the appliance for the proof.
 */
import type { PinnedAuditKey } from '../../audit-chain/keys-file.js';
import type { ApiClient } from '../../client/api-client.js';
import { ApiError, TransportError } from '../../client/errors.js';

/**
 * Tries one step from the kept checkpoint to the newest one `list` (GET /audit/checkpoints, as served)
 * names: 'kept' when a consistency proof moved it, 'fork' when none joins them (a break the page
 * checks say from now on), 'nothing' otherwise. Throws when the appliance could not be asked.
 */
export async function advanceKeptCheckpoint(
  list: unknown,
  o: {
    client: ApiClient;
    auditKey?: PinnedAuditKey;
    writeFork?: (evidence: string, foundAt: string) => Promise<string>;
  },
): Promise<'kept' | 'fork' | 'nothing'> {
  // the checks need node:crypto, which the dashboard loads only when they are used
  const { advanceKept } = await import('../../audit-chain/kept-advance.js');
  const { consistencyOfAnswer } = await import('../../audit-chain/tree-consistency.js');
  return advanceKept(list, {
    ...(o.auditKey ? { pinnedPem: o.auditKey.pem } : {}),
    ...(o.writeFork ? { writeFork: o.writeFork } : {}),
    consistency: async (from, to) => {
      let served: unknown;
      try {
        ({ served } = await o.client.call('auditConsistencyProof', { query: { from, to }, keepServed: true }));
      } catch (err) {
        // refused (400: sizes its tree does not join): no proof, which the comparison names; anything else (an
        // appliance without the route, a lost connection) decides nothing
        if (err instanceof ApiError && err.status === 400) return null;
        throw err;
      }
      const proof = consistencyOfAnswer(served, from, to);
      if (!proof) throw new TransportError('protocol', `the consistency proof from ${from} to ${to} is not one`);
      return proof;
    },
  });
}
