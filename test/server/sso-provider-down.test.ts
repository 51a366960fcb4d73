import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import pino from 'pino';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { startHttpPeer, type HttpPeer } from '../helpers/http-peer.js';
import { FIRST_BACKOFF_MS } from '../../src/server/identity/provider-keys.js';

const AUDIENCE = 'urn:appliance-admin';
const SSO = {
  audience: AUDIENCE,
  role_claim: 'groups',
  subject_claim: 'sub',
  role_map: { 'aa-admins': 'it_admin' },
} as const;

let privateKey: CryptoKey;
let publicJwk: JWK;
beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  privateKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
});

const signed = (issuer: string) =>
  new SignJWT({ groups: ['aa-admins'] })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setSubject('sso-alice')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(privateKey);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((close) => close()));
});

/** The server with SSO against `issuer`, and the warnings it logs. */
async function serverFor(
  issuer: string,
  extra: { jwks_uri?: string } = {},
): Promise<{ s: TestServer; warnings: string[] }> {
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
  const s = await startTestServer({
    logger,
    config: (root) => fixtureConfig(root, { sso: { issuer, ...SSO, ...extra } }),
  });
  cleanup.push(() => s.close());
  return { s, warnings };
}

async function peer(handler: Parameters<typeof startHttpPeer>[0]): Promise<HttpPeer> {
  const p = await startHttpPeer(handler);
  cleanup.push(() => p.close());
  return p;
}

const concurrently = (s: TestServer, token: string, n: number) =>
  Promise.all(Array.from({ length: n }, () => s.call('GET', '/session', { token })));

describe('an identity provider that cannot be reached', () => {
  it('gets one discovery fetch for 100 concurrent requests, and none more while backing off', async () => {
    const idp = await peer((_req, res) => res.writeHead(503).end());
    const { s, warnings } = await serverFor(idp.url);
    const token = await signed(idp.url);

    const answers = await concurrently(s, token, 100);
    expect(answers.map((r) => r.status)).toEqual(Array(100).fill(503));
    expect(idp.paths).toEqual(['/.well-known/openid-configuration']);
    // right after the failure: answered at once, the provider left alone
    expect((await concurrently(s, token, 20)).every((r) => r.status === 503)).toBe(true);
    expect(idp.paths).toHaveLength(1);
    // one failed fetch, one warning, which carries the cause
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/discovery answered 503/);
    expect(warnings.join('')).not.toContain(token.split('.')[2]);
  });

  it('gets one key set fetch for 100 concurrent requests, and none more while backing off', async () => {
    const keys = await peer((_req, res) => res.writeHead(500).end());
    const { s } = await serverFor('https://login.example.invalid/realm', { jwks_uri: `${keys.url}/jwks` });
    const token = await signed('https://login.example.invalid/realm');

    expect((await concurrently(s, token, 100)).every((r) => r.status === 503)).toBe(true);
    expect(keys.paths).toEqual(['/jwks']);
    expect((await concurrently(s, token, 20)).every((r) => r.status === 503)).toBe(true);
    expect(keys.paths).toHaveLength(1);
  });

  it('answers a 503 whose detail names no address; the cause goes to the log', async () => {
    const gone = await startHttpPeer(() => {});
    const issuer = gone.url;
    await gone.close();
    const { s, warnings } = await serverFor(issuer);

    const res = await s.call('GET', '/session', { token: await signed(issuer) });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.json.detail).toBe('cannot verify identity-provider tokens right now; the cause is in the server log');
    expect(res.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    expect(res.text).not.toContain(String(new URL(issuer).port));
    expect(warnings.join('\n')).toMatch(/ECONNREFUSED/);
  });

  it('is asked again once the backoff has passed, and its tokens are then accepted', { timeout: 30_000 }, async () => {
    let down = true;
    const idp = await peer((req, res) => {
      if (down) return res.writeHead(503).end();
      const body = req.url === '/jwks' ? { keys: [publicJwk] } : { issuer: idp.url, jwks_uri: `${idp.url}/jwks` };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    const { s } = await serverFor(idp.url);
    const token = await signed(idp.url);

    expect((await s.call('GET', '/session', { token })).status).toBe(503);
    down = false;
    expect((await s.call('GET', '/session', { token })).status).toBe(503); // still backing off
    expect(idp.paths).toHaveLength(1);
    // the backoff passes by the server's clock (only Date is faked: timers and sockets run)
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    let res: Awaited<ReturnType<typeof s.call>>;
    try {
      vi.setSystemTime(Date.now() + FIRST_BACKOFF_MS + 1);
      res = await s.call('GET', '/session', { token });
    } finally {
      vi.useRealTimers();
    }
    expect(res.status).toBe(200);
    expect(res.json.subject).toBe('sso-alice');
    expect(idp.paths).toEqual(['/.well-known/openid-configuration', '/.well-known/openid-configuration', '/jwks']);
  });
});
