import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { GroupContext, GroupFactory, RouteGroup } from '../../src/server/http/route-kit.js';

// The real areas, with one changed as the test says: a declaration the types would refuse, a route
// left out, or a hook of the area's own. Faults the real area files cannot be made to produce.
const change = vi.hoisted(() => ({
  channels: undefined as ((group: RouteGroup, g: GroupContext) => RouteGroup) | undefined,
}));
vi.mock('../../src/server/routes/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/server/routes/index.js')>();
  const changed: (make: GroupFactory) => GroupFactory = (make) => (g) => {
    const group = make(g);
    return group.handlers.updateChannels && change.channels ? change.channels(group, g) : group;
  };
  return { routeGroups: real.routeGroups.map(changed) };
});

let s: TestServer | undefined;
afterEach(async () => {
  change.channels = undefined;
  await s?.close();
  s = undefined;
});

describe('a server route declaration', () => {
  it('is refused at start when its audit action is not the contract one', async () => {
    change.channels = (group) => {
      const update = group.handlers.updateChannels!;
      const audit = { ...update.audit, action: 'channel.toggle' } as unknown as typeof update.audit;
      return { ...group, handlers: { ...group.handlers, updateChannels: { ...update, audit } } };
    };
    await expect(startTestServer()).rejects.toThrow(/route updateChannels: .* not the contract's/);
  });

  it('is refused at start when it lets every role call a mutation', async () => {
    change.channels = (group) => {
      const update = group.handlers.updateChannels!;
      const allow = 'any role' as unknown as typeof update.allow;
      return { ...group, handlers: { ...group.handlers, updateChannels: { ...update, allow } } };
    };
    await expect(startTestServer()).rejects.toThrow(/route updateChannels: .* not the contract's/);
  });

  it('must exist for every contract route', async () => {
    change.channels = ({ handlers: { updateChannels: _left, ...handlers }, ...group }) => ({ ...group, handlers });
    await expect(startTestServer()).rejects.toThrow('no handler for route updateChannels');
  });
});

describe('an area', () => {
  it('is a fastify plugin of its own: a hook it adds reaches its own routes only', async () => {
    change.channels = (group, g) => {
      g.app.addHook('onSend', async (_req, reply) => void reply.header('x-area', 'channels'));
      return group;
    };
    s = await startTestServer();
    expect((await s.call('GET', '/channels')).headers['x-area']).toBe('channels');
    expect(
      (await s.call('PUT', '/channels', { body: { channels: [{ id: 'chan_web', enabled: true }] } })).headers['x-area'],
    ).toBe('channels');
    expect((await s.call('GET', '/models')).headers['x-area']).toBeUndefined();
    expect((await s.call('GET', '/session')).headers['x-area']).toBeUndefined();
  });
});
