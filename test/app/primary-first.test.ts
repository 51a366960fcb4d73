import dc from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { createDashboard } from '../../src/app/deps.js';
import { screens } from '../../screens/index.js';
import { screenResources } from '../../src/app/screen-resources.js';
import { screenState } from '../../src/store/ui.js';
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
    const client = new ApiClient({ url: server.url, token: server.tokens.it_admin });
    const deps = createDashboard({
      client,
      token: server.tokens.it_admin,
      screens,
      refreshMs: 60_000,
      initialScreen: 'overview',
    });
    const paths: string[] = [];
    const made = ({ request }: { request: { path: string } }) => paths.push(request.path.replace(/\?.*/, ''));
    dc.subscribe('undici:request:create', made as (message: unknown) => void);
    try {
      deps.poller.start(true);
      await deps.poller.firstRound(10_000, true);
      expect(paths).toEqual(['/v1/admin/session', '/v1/admin/deployment']);
      const answered = () => Object.values(deps.resources.getState().entries).filter((e) => e.status === 'ok');
      expect(answered()).toHaveLength(1);
      await deps.poller.firstRound(10_000);
      const overview = screens.find((s) => s.name === 'overview')!;
      const wanted = screenResources(overview, screenState(deps.ui.getState(), 'overview')).requests;
      expect(paths).toHaveLength(1 + wanted.length);
      expect(answered()).toHaveLength(wanted.length);
      expect(paths.filter((p) => p === '/v1/admin/deployment')).toHaveLength(1);
      expect(paths).toContain('/v1/admin/connectors');
    } finally {
      dc.unsubscribe('undici:request:create', made as (message: unknown) => void);
      await deps.close();
    }
  });
});
