import { afterAll, beforeAll } from 'vitest';
import { startHostile, type HostileServer } from './hostile-server.js';
import { startTestServer, type TestServer } from './server.js';

interface HostileFront {
  /** the real server */
  readonly server: TestServer;
  /** a scripted peer in front of it (its url is the one to use): every path not set passes through */
  readonly hostile: HostileServer;
}

/**
 * The real server with a scripted peer in front (startHostile({ upstream })), for the tests of the
 * file or describe it is called in: both started before the first test (after `before`, e.g.
 * ensureBuilt), both closed after the last, the peer first. `demo`: the server with the demo data.
 */
export function setupHostileFront(o: { demo?: boolean; before?: () => Promise<void>; timeoutMs?: number } = {}) {
  let server: TestServer | undefined;
  let hostile: HostileServer | undefined;
  const started = <T>(x: T | undefined): T => {
    if (!x) throw new Error('the hostile front is not started yet (use it inside a test or hook)');
    return x;
  };
  beforeAll(async () => {
    await o.before?.();
    server = await startTestServer(o.demo ? { demo: true } : {});
    hostile = await startHostile({ upstream: server.url });
  }, o.timeoutMs);
  afterAll(async () => {
    await hostile?.close();
    await server?.close();
  });
  const front: HostileFront = {
    get server() {
      return started(server);
    },
    get hostile() {
      return started(hostile);
    },
  };
  return front;
}
