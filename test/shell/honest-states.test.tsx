import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken, revokeToken } from '../../src/server/tokens.js';
import { renderDashboard } from '../helpers/dashboard.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { overviewScreen } from '../../screens/overview.js';
import { EMPTY_SCREEN_STATE } from '../../src/dashboard/kit/screen-state.js';

/** the overview's sources: a monitor's line counts them */
const SOURCES = overviewScreen.resources(EMPTY_SCREEN_STATE).length;

/**
 * Issue 39, point 6: the header and the overview say what is so. A token the appliance refuses is
 * not "connected"; an appliance that is stopped is "disconnected"; a board that read nothing says it
 * could not read the appliance, not that nothing needs attention.
 */
const header = (f: string) => f.split('\n').slice(0, 2).join('\n');

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

describe('a token the appliance refuses', () => {
  it('a revoked token: the header says TOKEN REFUSED, never connected; the overview could not read the appliance', async () => {
    const { token } = issueToken(s.server.db, 'it_admin', 'soon-revoked');
    expect(revokeToken(s.server.db, 'soon-revoked')).toBe(1);
    const d = renderDashboard({ url: s.url, token, screen: 'overview' });
    try {
      const f = await d.waitFor(
        (x) => header(x).includes('✕ TOKEN REFUSED') && x.includes('Could not read the appliance'),
        'refused, nothing read',
      );
      expect(f).toContain(`none of ${SOURCES} sources answered`);
      expect(f).not.toContain('Nothing needs attention');
      expect(d.allFrames()).not.toContain('● connected');
    } finally {
      await d.unmount();
    }
  });

  it('a token the appliance never issued: the same on any screen', async () => {
    const d = renderDashboard({ url: s.url, token: 'aat_not-a-token-this-appliance-issued', screen: 'keys' });
    try {
      await d.waitFor((x) => header(x).includes('✕ TOKEN REFUSED'), 'refused');
      expect(d.allFrames()).not.toContain('● connected');
    } finally {
      await d.unmount();
    }
  });
});

describe('an appliance that stops', () => {
  it('connected while it answers, DISCONNECTED once it is stopped; the board read before stays', async () => {
    const own = await startTestServer();
    const d = renderDashboard({ server: own, role: 'auditor', screen: 'overview', timeoutMs: 500 });
    try {
      const before = await d.waitFor(
        (x) => header(x).includes('● connected') && /attention/.test(x),
        'connected, the board read',
      );
      expect(before).not.toContain('Could not read the appliance');
      await own.close();
      d.deps.poller.refreshNow();
      const f = await d.waitFor((x) => /✕ DISCONNECTED · retry in \d+ s/.test(header(x)), 'disconnected');
      expect(header(f)).not.toContain('● connected');
      expect(header(f)).not.toContain('TOKEN REFUSED');
    } finally {
      await d.unmount();
    }
  });

  it('down from the start: DISCONNECTED, and the overview could not read the appliance', async () => {
    const gone = await startTestServer();
    const { url } = gone;
    const token = gone.tokens.it_admin;
    await gone.close();
    const d = renderDashboard({ url, token, screen: 'overview', timeoutMs: 500 });
    try {
      const f = await d.waitFor(
        (x) => /✕ DISCONNECTED/.test(header(x)) && x.includes('Could not read the appliance'),
        'down, nothing read',
      );
      expect(f).not.toContain('Nothing needs attention');
    } finally {
      await d.unmount();
    }
  });
});
