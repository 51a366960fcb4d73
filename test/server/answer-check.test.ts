import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, snapshot, type TestServer } from '../helpers/server.js';
import type { GroupFactory, HandlerResult } from '../../src/server/http/route-kit.js';

// The real route groups, with PUT /channels answering a body its schema refuses once it has made
// its change: the one fault a real handler cannot be made to produce.
vi.mock('../../src/server/routes/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/server/routes/index.js')>();
  const breakAnswer: (make: GroupFactory) => GroupFactory = (make) => (g) => {
    const group = make(g);
    const update = group.handlers.updateChannels;
    if (!update) return group;
    return {
      ...group,
      handlers: {
        ...group.handlers,
        updateChannels: {
          ...update,
          run: (input, ctx) => ({ ...(update.run(input, ctx) as HandlerResult), body: { channels: 'not a list' } }),
        },
      },
    };
  };
  return { routeGroups: real.routeGroups.map(breakAnswer) };
});

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

describe('an answer that fails its schema', () => {
  it('rolls the change back and is audited as failed, not as a success', async () => {
    const channels = snapshot(s, 'channels');
    const res = await s.call('PUT', '/channels', {
      body: {
        channels: [
          { id: 'chan_web', enabled: false },
          { id: 'chan_mail', enabled: true },
        ],
      },
    });
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(snapshot(s, 'channels')).toEqual(channels);
    const entries = s.server.db
      .prepare("SELECT outcome, status, request_id FROM audit WHERE action = 'channel.update'")
      .all();
    expect(entries).toEqual([{ outcome: 'failed', status: 500, request_id: res.json.request_id }]);
  });
});
