import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overviewDashboard } from '../helpers/overview-dashboard.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/**
 * The overview's slow figures (counts over an hour or a day, the lists that only name things) are
 * asked for every 10 s, not at every refresh, which keeps an idle board cheap; what is broken now
 * is asked for at every refresh, and `r` asks for everything. Real server, the requests as undici
 * makes them.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("a resource's everyMs", () => {
  it('skips the slow resources on a refresh until their answer is that old; r asks for them at once', async () => {
    const { deps, paths, close } = overviewDashboard(server, 250);
    const count = (p: string) => paths.filter((x) => x === `/v1/admin${p}`).length;
    try {
      deps.poller.start(true);
      deps.poller.firstFrameDrawn();
      await deps.poller.firstRound(10_000);
      // four refreshes: the deployment, the connectors and the models at each, the keys, the routing and the
      // checkpoints only in the first round (the keys three times: those with a budget, those expiring soon,
      // those unused)
      await until('four refreshes', () => count('/deployment') >= 4 && count('/connectors') >= 4);
      expect(count('/models')).toBeGreaterThanOrEqual(3);
      expect(count('/gateway/keys')).toBe(3);
      expect(count('/routing')).toBe(1);
      expect(count('/audit/checkpoints')).toBe(1);
      deps.poller.refreshNow();
      await until(
        'the slow ones asked again',
        () => count('/gateway/keys') >= 6 && count('/routing') >= 2 && count('/audit/checkpoints') >= 2,
      );
      expect(count('/gateway/keys')).toBe(6);
      expect(count('/routing')).toBe(2);
      expect(count('/audit/checkpoints')).toBe(2);
    } finally {
      await close();
    }
  });
});
