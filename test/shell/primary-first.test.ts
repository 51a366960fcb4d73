import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screens } from '../../screens/index.js';
import { screenResources } from '../../src/dashboard/shell/screen-resources.js';
import { screenState } from '../../src/dashboard/state/ui.js';
import { overviewDashboard } from '../helpers/overview-dashboard.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The overview draws what has arrived (issue 25): its first round asks for the session and its
 * first resource, and for its other resources only once those have answered, so that their
 * answers do not hold up its first frame. Real server, real HTTP; the requests as undici makes them.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('a primary-first round', () => {
  it("asks for the session and the overview's first resource, then for the others, each once", async () => {
    const { deps, paths, close } = overviewDashboard(server, 60_000);
    try {
      deps.poller.start(true);
      await deps.poller.firstRound(10_000, true);
      expect(paths).toEqual(['/v1/admin/session', '/v1/admin/deployment']);
      const answered = () => Object.values(deps.resources.getState().entries).filter((e) => e.status === 'ok');
      expect(answered()).toHaveLength(1);
      // nothing more until the frame with them is drawn (src/dashboard/shell/start.ts says so): a
      // request of the test's own, answered, comes next
      await deps.client.call('listAudit', { query: { limit: 1 } });
      expect(paths).toEqual(['/v1/admin/session', '/v1/admin/deployment', '/v1/admin/audit']);
      paths.pop();
      deps.poller.firstFrameDrawn();
      await deps.poller.firstRound(10_000);
      const overview = screens.find((s) => s.name === 'overview')!;
      const wanted = screenResources(overview, screenState(deps.ui.getState(), 'overview')).requests;
      expect(paths).toHaveLength(1 + wanted.length);
      expect(answered()).toHaveLength(wanted.length);
      expect(paths.filter((p) => p === '/v1/admin/deployment')).toHaveLength(1);
      expect(paths).toContain('/v1/admin/connectors');
    } finally {
      await close();
    }
  });
});
