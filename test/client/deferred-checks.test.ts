import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { NOT_THIS_API, TransportError } from '../../src/client/errors.js';
import { json } from '../helpers/hostile-server.js';
import { setupHostileFront } from '../helpers/hostile-front.js';

/**
 * ApiClient.deferChecks: the answers of the dashboard's first frame are read as sent (sanitized,
 * no schema built, so no zod loaded before that frame: docs/performance.md), then read again,
 * checked. The real server for what an appliance sends; a scripted peer for what it would not.
 */
const front = setupHostileFront({ demo: true });

const CONNECTOR = {
  id: 'c1',
  name: 'Team share',
  kind: 'document-sharing',
  state: 'healthy',
  last_sync: null,
  rbac_labels: [],
  sources: [],
};

describe('answers read while checks are deferred', () => {
  it("are the appliance's answer as the checked read gives it, marked unchecked, and never kept for a 304", async () => {
    const checked = new ApiClient({ url: front.server.url, token: front.server.tokens.it_admin });
    const deferred = new ApiClient({ url: front.server.url, token: front.server.tokens.it_admin });
    try {
      const want = await checked.call('listConnectors', { query: { limit: 500 } });
      expect(want.unchecked).toBeUndefined();
      deferred.deferChecks(true);
      const first = await deferred.call('listConnectors', { query: { limit: 500 } });
      expect(first).toMatchObject({ status: 200, unchecked: true, issues: [], notModified: false });
      expect(first.data).toEqual(want.data);
      // not remembered: the read after the first frame gets the whole answer to check
      const again = await deferred.call('listConnectors', { query: { limit: 500 } });
      expect(again).toMatchObject({ status: 200, unchecked: true, notModified: false });
      deferred.deferChecks(false);
      const now = await deferred.call('listConnectors', { query: { limit: 500 } });
      expect(now.status).toBe(200);
      expect(now.unchecked).toBeUndefined();
      expect(now.data).toEqual(want.data);
      const revalidated = await deferred.call('listConnectors', { query: { limit: 500 } });
      expect(revalidated).toMatchObject({ status: 304, notModified: true });
    } finally {
      await checked.close();
      await deferred.close();
    }
  });

  it('are sanitized for the terminal all the same, and their contract issues come with the checked read', async () => {
    front.hostile.set(
      '/connectors',
      json({
        data: [{ ...CONNECTOR, name: '\u001b[2J\u001b]0;owned\u0007Team share', state: 7 }],
        next_cursor: null,
        has_more: false,
      }),
    );
    const c = new ApiClient({ url: front.hostile.url, token: front.server.tokens.it_admin });
    try {
      c.deferChecks(true);
      const asSent = await c.call('listConnectors');
      expect(asSent.unchecked).toBe(true);
      expect(asSent.data.data[0].name).toBe('Team share');
      expect(asSent.data.data[0].state).toBe(7); // not checked: as sent
      expect(asSent.issues).toEqual([]);
      c.deferChecks(false);
      const read = await c.call('listConnectors');
      expect(read.unchecked).toBeUndefined();
      expect(read.data.data[0].name).toBe('Team share');
      expect(read.issues.map((i) => i.path)).toEqual(['data.0.state']);
    } finally {
      front.hostile.clear();
      await c.close();
    }
  });

  it('are checked at once when they are no JSON object: a bare list is mended, unrelated JSON refused', async () => {
    const c = new ApiClient({ url: front.hostile.url, token: front.server.tokens.it_admin });
    c.deferChecks(true);
    try {
      front.hostile.set('/connectors', json([CONNECTOR]));
      const mended = await c.call('listConnectors');
      expect(mended.unchecked).toBeUndefined();
      expect(mended.data).toEqual({ data: [CONNECTOR], next_cursor: null, has_more: false });
      front.hostile.set('/session', json('"signed in"'));
      const err = await c.call('session').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransportError);
      expect((err as TransportError).causeCode).toBe(NOT_THIS_API);
    } finally {
      front.hostile.clear();
      await c.close();
    }
  });

  it('leave changes alone: a change is read and checked as ever', async () => {
    const c = new ApiClient({ url: front.server.url, token: front.server.tokens.it_admin });
    c.deferChecks(true);
    try {
      const created = await c.call('createKey', { body: { name: 'deferred-checks' } });
      expect(created.status).toBe(201);
      expect(created.unchecked).toBeUndefined();
    } finally {
      await c.close();
    }
  });
});
