import dc from 'node:diagnostics_channel';
import { ApiClient } from '../../src/client/api-client.js';
import { createDashboard } from '../../src/dashboard/shell/deps.js';
import { screens } from '../../screens/index.js';
import type { TestServer } from './server.js';

/**
 * A dashboard's state and poller on the overview, without a terminal, against a real server, and
 * the path of every request it makes (undici's own diagnostics channel, as the requests leave).
 * `close` stops both.
 */
export function overviewDashboard(server: TestServer, refreshMs: number) {
  const client = new ApiClient({ url: server.url, token: server.tokens.it_admin });
  const deps = createDashboard({
    client,
    token: server.tokens.it_admin,
    screens,
    refreshMs,
    initialScreen: 'overview',
  });
  const paths: string[] = [];
  const made = ({ request }: { request: { path: string } }) => paths.push(request.path.replace(/\?.*/, ''));
  dc.subscribe('undici:request:create', made as (message: unknown) => void);
  return {
    deps,
    paths,
    close: async () => {
      dc.unsubscribe('undici:request:create', made as (message: unknown) => void);
      await deps.close();
    },
  };
}
