import type { GroupFactory } from '../http/route-kit.js';
import { catchUpDemo, markDemoHistoryUntil, seedDemo } from './seed.js';
import { startTraffic, type TrafficHandle } from './traffic.js';

/**
 * With --demo: seeds 30 days of demo history once per data directory (or brings a seeded one up to
 * now: a copy of the prebuilt demo database, a directory served again), and once the server is
 * ready runs the traffic generator until the server closes.
 */
export const demoGroup: GroupFactory = ({ app, db, config, log, options }) => {
  if (!options.demo) return { handlers: {} };
  const demoLog = log.child({ area: 'demo' });
  const stats = seedDemo(db, config);
  if (stats) demoLog.info(stats, 'demo history seeded');
  else {
    const caughtUp = catchUpDemo(db, config);
    if (caughtUp) demoLog.info(caughtUp, 'demo history brought up to now');
  }
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
      if (traffic) markDemoHistoryUntil(db);
    },
  };
};
