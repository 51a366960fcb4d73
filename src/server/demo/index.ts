import type { GroupFactory } from '../http/route-kit.js';
import { seedDemo } from './seed.js';
import { startTraffic, type TrafficHandle } from './traffic.js';

/**
 * With --demo: seeds 30 days of demo history once per data directory, and once the server is
 * ready runs the traffic generator until the server closes.
 */
export const demoGroup: GroupFactory = ({ app, db, config, log, options }) => {
  if (!options.demo) return { handlers: {} };
  const demoLog = log.child({ area: 'demo' });
  const stats = seedDemo(db, config);
  if (stats) demoLog.info(stats, 'demo history seeded');
  let traffic: TrafficHandle | undefined;
  let closed = false;
  app.addHook('onReady', async () => {
    if (!closed && !traffic) traffic = startTraffic(app, db, config, { log: demoLog });
  });
  return {
    handlers: {},
    close: async () => {
      closed = true;
      await traffic?.stop();
    },
  };
};
