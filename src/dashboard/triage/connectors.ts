/** Connectors that are failing: in error, or degraded, with their last sync's failure. */
import type { Connector } from '../../contract/index.js';
import { shortTime } from '../kit/format.js';
import { NOW, type TriageLine } from './line.js';

export function connectorLines(connectors: Connector[]): TriageLine[] {
  return connectors
    .filter((c) => c.state !== 'healthy' && c.state !== 'syncing' && c.state !== 'disabled')
    .map((c) => {
      const sync = c.last_sync;
      const failed = sync?.status === 'failed';
      const why = sync?.error
        ? `last sync failed: ${sync.error}`
        : failed
          ? `last sync failed at ${shortTime(sync.at)} UTC (job ${sync.job_id})`
          : 'no failed sync on record';
      return {
        key: `connector:${c.id}`,
        severity: c.state === 'error' ? 'crit' : 'warn',
        what: `Connector ${c.name ?? c.id}`,
        reason: `${c.state}: ${why}`,
        count: null,
        window: NOW,
        link: { screen: 'connectors', select: c.id },
      } satisfies TriageLine;
    });
}
