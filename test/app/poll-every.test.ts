import dc from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { createDashboard } from '../../src/app/deps.js';
import { screens } from '../../screens/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a resource's everyMs", () => {
  it('skips the slow resources on a refresh until their answer is that old; r asks for them at once', async () => {
    const client = new ApiClient({ url: server.url, token: server.tokens.it_admin });
    const deps = createDashboard({
      client,
      token: server.tokens.it_admin,
      screens,
      refreshMs: 250,
      initialScreen: 'overview',
    });
    const paths: string[] = [];
    const made = ({ request }: { request: { path: string } }) => paths.push(request.path.replace(/\?.*/, ''));
    dc.subscribe('undici:request:create', made as (message: unknown) => void);
    const count = (p: string) => paths.filter((x) => x === `/v1/admin${p}`).length;
    try {
      deps.poller.start(true);
      await deps.poller.firstRound(10_000);
      await sleep(2_500);
      // about ten refreshes: the deployment at each, the keys and the checkpoints only in the first round
      expect(count('/deployment')).toBeGreaterThanOrEqual(4);
      expect(count('/connectors')).toBeGreaterThanOrEqual(4);
      expect(count('/gateway/keys')).toBe(1);
      expect(count('/audit/checkpoints')).toBe(1);
      deps.poller.refreshNow();
      await sleep(500);
      expect(count('/gateway/keys')).toBe(2);
      expect(count('/audit/checkpoints')).toBe(2);
    } finally {
      dc.unsubscribe('undici:request:create', made as (message: unknown) => void);
      await deps.close();
    }
  });
});
