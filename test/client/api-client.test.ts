import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ApiClient } from '../../src/client/api-client.js';
import { ApiError, TransportError } from '../../src/client/errors.js';
import { createSessionStore, resolveSession, readOnlyReason } from '../../src/dashboard/state/session.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/fixtures.js';
import { startVariant } from '../helpers/appliance-variant.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.close();
});

const client = (token = s.tokens.it_admin, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) =>
  new ApiClient({ url: s.url, token, ...extra });

describe('ApiClient', () => {
  it('calls routes by name and revalidates with ETag (304 returns the cached value)', async () => {
    const c = client();
    const first = await c.call('listChannels', { query: { limit: 10 } });
    expect(first.notModified).toBe(false);
    expect(first.data.data.map((x) => x.id)).toContain('chan_web');
    expect(first.requestId).toMatch(/^req_/);
    const again = await c.call('listChannels', { query: { limit: 10 } });
    expect(again.status).toBe(304);
    expect(again.notModified).toBe(true);
    expect(again.data).toEqual(first.data);
    await c.close();
  });

  it('a moving window (rolling start time) is answered 304 when its entries did not change, and 200 when one came in', async () => {
    const c = client(s.tokens.auditor);
    const start = (ms: number) => new Date(Date.parse('2020-01-01T00:00:00Z') + ms).toISOString();
    const enableWeb = () =>
      s.call('PUT', '/v1/admin/channels', {
        role: 'it_admin',
        body: { channels: [{ id: 'chan_web', enabled: true }] },
      });
    await enableWeb();
    const first = await c.call('listAudit', { query: { limit: 5, start_time: start(0) }, revalidateAs: 'audit-24h' });
    expect(first.status).toBe(200);
    expect(first.data.data.length).toBeGreaterThan(0);
    // the window moved by 10 s: another URL, the same entries
    const moved = await c.call('listAudit', {
      query: { limit: 5, start_time: start(10_000) },
      revalidateAs: 'audit-24h',
    });
    expect(moved.status).toBe(304);
    expect(moved.data).toEqual(first.data);
    // without the name, the moved URL is read whole
    expect(
      (await client(s.tokens.auditor).call('listAudit', { query: { limit: 5, start_time: start(20_000) } })).status,
    ).toBe(200);
    // a mutation adds an audit entry: the next window is a new answer
    await enableWeb();
    const changed = await c.call('listAudit', {
      query: { limit: 5, start_time: start(30_000) },
      revalidateAs: 'audit-24h',
    });
    expect(changed.status).toBe(200);
    expect(changed.data.data[0].id).not.toBe(first.data.data[0].id);
    await c.close();
  });

  it('accepts the URL with or without /v1/admin', async () => {
    const c = new ApiClient({ url: `${s.url}/v1/admin/`, token: s.tokens.auditor });
    expect((await c.call('session')).data.role).toBe('auditor');
    expect(c.displayUrl).toBe(s.url);
    await c.close();
  });

  it('decodes problem+json into ApiError with code, request id and invalid params', async () => {
    const c = client();
    const err = await c
      .call('setQuota', {
        params: { id: 'key_missing' },
        body: { requests_per_minute: -1, tokens_per_minute: null, tokens_per_day: null },
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(400);
    expect(err.code).toBe('SVC-ADMIN-400');
    expect(err.requestId).toMatch(/^req_/);
    expect(err.invalidParams.map((p: { name: string }) => p.name).join()).toContain('requests_per_minute');
    const denied = await client(s.tokens.auditor)
      .call('updateChannels', { body: { channels: [{ id: 'chan_web', enabled: false }] } })
      .catch((e) => e);
    expect(denied).toMatchObject({ status: 403, code: 'SVC-ADMIN-403' });
    await c.close();
  });

  it('turns connection failures, timeouts and oversized answers into TransportError', async () => {
    const refused = await new ApiClient({ url: 'http://127.0.0.1:1', token: 't' }).call('session').catch((e) => e);
    expect(refused).toBeInstanceOf(TransportError);
    expect(refused.kind).toBe('refused');

    const hang = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const slow = new ApiClient({
      url: `http://127.0.0.1:${(hang.address() as { port: number }).port}`,
      token: 't',
      timeoutMs: 200,
    });
    const timeout = await slow.call('session').catch((e) => e);
    expect(timeout).toBeInstanceOf(TransportError);
    expect(timeout.kind).toBe('timeout');
    await slow.close();
    hang.closeAllConnections();
    hang.close();

    const small = client(s.tokens.it_admin, { maxBytes: 200 });
    const big = await small.call('listConnectors').catch((e) => e);
    expect(big).toBeInstanceOf(TransportError);
    expect(big.kind).toBe('too-large');
    await small.close();
  });

  it('sends a read while the answer before it still streams, on the same connection; never a change', async () => {
    const seen: { what: string; socket: unknown; whilePending: string[] }[] = [];
    const pending = new Set<string>();
    const server = createServer((req, res) => {
      const what = `${req.method} ${req.url!.replace(/\?.*/, '')}`;
      seen.push({ what, socket: req.socket, whilePending: [...pending] });
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.method !== 'GET') return res.end('{"data":[]}');
      // headers now, the rest of the body 150 ms later
      pending.add(what);
      res.write('{"data":[');
      setTimeout(() => {
        pending.delete(what);
        res.end(']}');
      }, 150);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const c = new ApiClient({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, token: 't' });
    try {
      await Promise.all([c.call('listConnectors'), c.call('listChannels')]);
      expect(seen.map((x) => x.what)).toEqual(['GET /v1/admin/connectors', 'GET /v1/admin/channels']);
      expect(seen[1].whilePending).toEqual(['GET /v1/admin/connectors']);
      expect(seen[1].socket).toBe(seen[0].socket);

      await Promise.all([c.call('listConnectors'), c.call('updateChannels', { body: { channels: [] } })]);
      expect(seen[3].what).toBe('PUT /v1/admin/channels');
      expect(seen[3].whilePending).toEqual([]);
    } finally {
      await c.close();
      server.close();
    }
  });

  it('keeps the token out of what it prints', () => {
    const c = client();
    expect(JSON.stringify(c)).not.toContain(s.tokens.it_admin);
    expect(inspect(c, { depth: 5 })).not.toContain(s.tokens.it_admin);
  });

  it('streams an export to a file with progress and sha256', async () => {
    const c = client();
    await c.call('updateChannels', { body: { channels: [{ id: 'chan_web', enabled: true }] } });
    const dest = join(tempDir('aa-dl'), 'audit.jsonl');
    const progress: number[] = [];
    const r = await c.download('exportAudit', { format: 'jsonl' }, dest, (p) => progress.push(p.bytes));
    const body = readFileSync(dest);
    expect(r.bytes).toBe(body.length);
    expect(r.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    expect(r.lines).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(body.length);
    expect(statSync(dest).mode & 0o077).toBe(0);
    await c.close();
  });
});

describe('an appliance that answers differently', () => {
  it('reads camelCase and bare arrays, keeps vendor fields', async () => {
    const v = await startVariant({
      target: s.url,
      camelCase: true,
      bareArrays: true,
      extraFields: { vendor_note: 'x' },
    });
    const c = new ApiClient({ url: v.url, token: s.tokens.it_admin });
    const r = await c.call('listConnectors');
    expect(r.issues).toEqual([]);
    const first = r.data.data[0] as Record<string, unknown>;
    expect(first).toHaveProperty('rbac_labels');
    expect(first).toHaveProperty('vendorNote', 'x'); // unknown: kept as sent
    await c.close();
    await v.close();
  });

  it('without GET /session, takes the role from the token claims (JWT)', async () => {
    const jwt = [
      'e30',
      Buffer.from(JSON.stringify({ sub: 'u1', preferred_username: 'carol', roles: ['appliance:auditor'] })).toString(
        'base64url',
      ),
      'sig',
    ].join('.');
    const v = await startVariant({ target: s.url, noSession: true, tokenMap: { [jwt]: s.tokens.auditor } });
    const store = createSessionStore();
    await resolveSession(new ApiClient({ url: v.url, token: jwt }), jwt, store);
    expect(store.getState()).toMatchObject({ subject: 'carol', role: 'auditor', source: 'claims', resolved: true });
    expect(readOnlyReason(store.getState())).toBe('role auditor is read-only');
    await v.close();
  });

  it('without GET /session or claims, the role stays unknown (changes allowed until a 403 teaches otherwise)', async () => {
    const v = await startVariant({ target: s.url, noSession: true });
    const store = createSessionStore();
    await resolveSession(new ApiClient({ url: v.url, token: s.tokens.auditor }), s.tokens.auditor, store);
    expect(store.getState()).toMatchObject({ role: null, source: 'unknown', resolved: true });
    expect(readOnlyReason(store.getState())).toBeNull();
    await v.close();
  });
});
