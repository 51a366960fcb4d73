import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { createDashboard } from '../../src/dashboard/shell/deps.js';
import { screens } from '../../screens/index.js';
import { json } from '../helpers/hostile-server.js';
import { until } from '../helpers/until.js';
import { setupHostileFront } from '../helpers/hostile-front.js';

/**
 * The first frame is drawn from answers read as sent (src/dashboard/shell/start.ts: ApiClient.deferChecks);
 * Poller.firstFrameDrawn, called once it is drawn, reads them again with the contract's check, so the
 * mends and issues are on screen a round trip later and nothing stays unchecked. Real server behind
 * a scripted peer, which sends what a real appliance would not.
 */
const front = setupHostileFront({ demo: true });

function connectorsDashboard(refreshMs = 60_000) {
  const client = new ApiClient({ url: front.hostile.url, token: front.server.tokens.it_admin });
  const deps = createDashboard({
    client,
    token: front.server.tokens.it_admin,
    screens,
    refreshMs,
    initialScreen: 'connectors',
  });
  const entry = () =>
    Object.entries(deps.resources.getState().entries).find(([k]) => k.includes('listConnectors'))?.[1];
  return { client, deps, entry };
}

/**
 * A request of the test's own through the dashboard's client, answered by the peer: whatever the
 * dashboard had sent before it has arrived too, so a count read now is final.
 */
async function afterAMarker(client: ApiClient) {
  const before = front.hostile.count('GET /audit');
  await client.call('listAudit', { query: { limit: 1 } });
  expect(front.hostile.count('GET /audit')).toBe(before + 1);
}

describe('the first answers, checked once the first frame is drawn', () => {
  it('are read again with the check: their issues arrive, the session and the list are asked once more, then no more', async () => {
    front.hostile.set(
      '/connectors',
      json({
        data: [
          {
            id: 'c1',
            name: 'Team share',
            kind: 'crm',
            state: 'no-such-state',
            last_sync: null,
            rbac_labels: [],
            sources: [],
          },
        ],
        next_cursor: null,
        has_more: false,
      }),
    );
    const { client, deps, entry } = connectorsDashboard();
    try {
      client.deferChecks(true);
      deps.poller.start();
      await deps.poller.firstRound(10_000);
      expect(entry()?.data).toMatchObject({ data: [{ name: 'Team share', state: 'no-such-state' }] });
      expect(entry()?.issues).toEqual([]);
      expect(deps.session.getState()).toMatchObject({ resolved: true, role: 'it_admin' });
      expect([front.hostile.count('GET /session'), front.hostile.count('GET /connectors')]).toEqual([1, 1]);

      deps.poller.firstFrameDrawn();
      await until('the checked read', () => (entry()?.issues.length ?? 0) > 0);
      expect(entry()?.issues.map((i) => i.path)).toEqual(['data.0.state']);
      await until('the session read again', () => front.hostile.count('GET /session') === 2);
      expect(deps.session.getState()).toMatchObject({ resolved: true, role: 'it_admin', source: 'session' });
      // both are checked now: nothing is read again until the next refresh (a minute away)
      await afterAMarker(client);
      expect([front.hostile.count('GET /session'), front.hostile.count('GET /connectors')]).toEqual([2, 2]);
    } finally {
      front.hostile.clear();
      front.hostile.requests.length = 0;
      await deps.close();
    }
  });

  it('a dashboard that never deferred its checks reads nothing again', async () => {
    const { client, deps, entry } = connectorsDashboard();
    try {
      deps.poller.start();
      await deps.poller.firstRound(10_000);
      expect(entry()?.status).toBe('ok');
      deps.poller.firstFrameDrawn();
      await afterAMarker(client);
      expect([front.hostile.count('GET /session'), front.hostile.count('GET /connectors')]).toEqual([1, 1]);
    } finally {
      front.hostile.requests.length = 0;
      await deps.close();
    }
  });

  it('a checked read that fails is tried again at every tick until it succeeds, the session too', async () => {
    const { client, deps } = connectorsDashboard(300);
    try {
      client.deferChecks(true);
      deps.poller.start();
      await deps.poller.firstRound(10_000);
      const busyOnce = (path: string) =>
        front.hostile.set(path, (req, res) => {
          front.hostile.set(path, null); // then the real server's answer again
          json({ type: 'about:blank', title: 'Busy', status: 503, code: 'SVC-ADMIN-503' }, 503)(req, res);
        });
      busyOnce('/session');
      deps.poller.firstFrameDrawn();
      await until('the session read a third time', () => front.hostile.count('GET /session') === 3);
      expect(deps.session.getState()).toMatchObject({ resolved: true, role: 'it_admin', source: 'session' });
      // three more ticks (each asks for the connectors): the session is checked now, not asked again
      const ticks = front.hostile.count('GET /connectors');
      await until('three more ticks', () => front.hostile.count('GET /connectors') >= ticks + 3);
      expect(front.hostile.count('GET /session')).toBe(3);
    } finally {
      front.hostile.clear();
      front.hostile.requests.length = 0;
      await deps.close();
    }
  });

  it('what the checked read refuses is dropped, not kept as stale data; a session that is none waits for its check', async () => {
    front.hostile.set('/connectors', json({ message: 'hello from a web server' }));
    front.hostile.set('/session', json({ message: 'hello from a web server' }));
    const { client, deps, entry } = connectorsDashboard();
    try {
      client.deferChecks(true);
      deps.poller.start();
      await deps.poller.firstRound(10_000);
      expect(entry()?.data).toEqual({ message: 'hello from a web server' });
      expect(deps.session.getState().resolved).toBe(false); // no role taken from it
      deps.poller.firstFrameDrawn();
      await until('the refusal', () => entry()?.status === 'error');
      expect(entry()).toMatchObject({ data: undefined, stale: false });
      expect(String(entry()?.error)).toContain('not from the appliance API');
      await until('the session', () => deps.session.getState().resolved);
      expect(deps.session.getState().source).not.toBe('session');
    } finally {
      front.hostile.clear();
      front.hostile.requests.length = 0;
      await deps.close();
    }
  });

  it('reads nothing while the poller is paused (a sign-in under way): the next tick after resume does', async () => {
    const { client, deps } = connectorsDashboard();
    try {
      client.deferChecks(true);
      deps.poller.start();
      await deps.poller.firstRound(10_000);
      deps.poller.pause();
      deps.poller.firstFrameDrawn();
      await afterAMarker(client);
      expect([front.hostile.count('GET /session'), front.hostile.count('GET /connectors')]).toEqual([1, 1]);
      deps.poller.resume();
      await until(
        'the checked reads',
        () => front.hostile.count('GET /session') === 2 && front.hostile.count('GET /connectors') === 2,
      );
    } finally {
      front.hostile.requests.length = 0;
      await deps.close();
    }
  });
});
