import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { TransportError } from '../../src/client/errors.js';
import { startHostile, trickle, type HostileServer } from '../helpers/hostile-server.js';
import { until } from '../helpers/until.js';

/**
 * ApiClient.abandon(), what the dashboard does as it quits (issue 37 §6): the requests in flight on
 * an appliance trickling its answers (a byte a second: never silent long enough for the idle
 * timeouts) fail at once as cancelled, on the kept-alive connection and on a stream's own, where
 * close() would wait for them up to the call's 30 s deadline.
 */
describe('abandoning the connections', () => {
  let h: HostileServer;
  beforeAll(async () => {
    h = await startHostile();
    const slow = trickle(JSON.stringify({ data: [], next_cursor: null, has_more: false }), 1_000);
    h.set('/connectors', slow);
    h.set('/audit/export', slow);
  });
  afterAll(() => h?.close());

  const inFlight = (n: number) => until(`${n} requests in flight`, () => h.requests.length >= n, 5_000);

  it('fails a call and a stream in flight at once, as cancelled, and sends nothing after', async () => {
    h.requests.length = 0;
    const client = new ApiClient({ url: h.url, token: 't' });
    const call = client.call('listConnectors').then(
      () => 'answered',
      (err: unknown) => err,
    );
    const stream = client.stream('exportAudit', { format: 'jsonl' }, new AbortController().signal).then(
      async (s) => {
        for await (const _ of s.body) void _;
        return 'answered';
      },
      (err: unknown) => err,
    );
    await inFlight(2);
    // the appliance never finishes either answer: that both end at all is the abandoning
    await client.abandon();
    const [callErr, streamErr] = await Promise.all([call, stream]);
    for (const err of [callErr, streamErr]) {
      expect(err).toBeInstanceOf(TransportError);
      expect((err as TransportError).kind).toBe('aborted');
    }
    const sent = h.requests.length;
    await expect(client.call('listConnectors')).rejects.toBeInstanceOf(TransportError);
    await expect(client.stream('exportAudit', {}, new AbortController().signal)).rejects.toMatchObject({
      kind: 'aborted',
    });
    expect(h.requests.length).toBe(sent);
  });
});
