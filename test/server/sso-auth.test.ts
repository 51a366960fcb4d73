import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, importJWK, SignJWT, type JWTPayload } from 'jose';
import pino from 'pino';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { loadConfig } from '../../src/server/config.js';
import { startHttpPeer } from '../helpers/http-peer.js';
import { startOidcProvider, type OidcPeer } from '../helpers/oidc.js';

const AUDIENCE = 'urn:appliance-admin';
const SECRET = 'a-client-secret-long-enough-for-oidc-provider';
const ROLE_MAP = { 'aa-admins': 'it_admin', 'aa-owners': 'app_owner', 'aa-auditors': 'auditor' } as const;

let op: OidcPeer;
let s: TestServer;
const issued: string[] = [];
/** the clock refused requests are counted by, when a test sets one */
let clock: number | undefined;

beforeAll(async () => {
  op = await startOidcProvider({
    roleClaim: 'groups',
    clients: [
      { client_id: 'admin-cli', client_secret: SECRET, roles: ['aa-admins'] },
      { client_id: 'owner-cli', client_secret: SECRET, roles: ['aa-owners'] },
      { client_id: 'auditor-cli', client_secret: SECRET, roles: ['staff', 'aa-auditors'] },
      { client_id: 'both-cli', client_secret: SECRET, roles: ['aa-auditors', 'aa-owners'] },
      { client_id: 'named-cli', client_secret: SECRET, roles: ['it_admin'] },
      { client_id: 'norole-cli', client_secret: SECRET },
      { client_id: 'stranger-cli', client_secret: SECRET, roles: ['staff'] },
    ],
  });
  s = await startTestServer({
    now: () => clock ?? Date.now(),
    config: (root) =>
      fixtureConfig(root, {
        sso: { issuer: op.issuer, audience: AUDIENCE, role_claim: 'groups', subject_claim: 'sub', role_map: ROLE_MAP },
      }),
  });
});
afterAll(async () => {
  await Promise.all([s?.close(), op?.close()]);
});

const token = async (clientId: string, resource?: string) => {
  const t = await op.accessToken(clientId, resource);
  issued.push(t);
  return t;
};

/** A token signed with the provider's own key (served in its JWKS), for claims the provider will not issue. */
async function signWithProviderKey(claims: JWTPayload, opts: { issuer?: string; expiresAt?: number } = {}) {
  const key = await importJWK(op.signingKey, 'RS256');
  const now = Math.floor(Date.now() / 1000);
  const t = await new SignJWT({ groups: ['aa-admins'], ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: op.signingKey.kid, typ: 'at+jwt' })
    .setIssuer(opts.issuer ?? op.issuer)
    .setAudience(AUDIENCE)
    .setSubject('crafted')
    .setIssuedAt(opts.expiresAt ? opts.expiresAt - 600 : now)
    .setExpirationTime(opts.expiresAt ?? now + 600)
    .sign(key);
  issued.push(t);
  return t;
}

/** A token signed with the provider's key carrying exactly `claims`: nothing is added. */
async function signExactly(claims: JWTPayload) {
  const t = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: op.signingKey.kid, typ: 'at+jwt' })
    .sign(await importJWK(op.signingKey, 'RS256'));
  issued.push(t);
  return t;
}

describe('SSO access tokens from a real OpenID provider', () => {
  it('maps the role claim to each of the three roles', async () => {
    for (const [client, role] of [
      ['admin-cli', 'it_admin'],
      ['owner-cli', 'app_owner'],
      ['auditor-cli', 'auditor'],
      ['both-cli', 'app_owner'],
      ['named-cli', 'it_admin'],
    ] as const) {
      const res = await s.call('GET', '/session', { token: await token(client) });
      expect(res.status, client).toBe(200);
      expect(res.json).toMatchObject({ subject: client, role });
      expect(res.json.expires_at).toMatch(/^\d{4}-/);
    }
  });

  it('lets an it_admin token mutate and refuses an auditor token with 403, both audited under the token subject', async () => {
    const body = { provider: 'oidc', issuer_url: op.issuer };
    const admin = await s.call('POST', '/identity/test', { token: await token('admin-cli'), body });
    expect(admin.status).toBe(200);
    expect(admin.json.ok).toBe(true);
    const auditor = await s.call('POST', '/identity/test', { token: await token('auditor-cli'), body });
    expect(auditor.status).toBe(403);
    expect(auditor.json.code).toBe('SVC-ADMIN-403');
    const rows = s.server.db
      .prepare("SELECT actor_subject, actor_role, outcome FROM audit WHERE action = 'identity.test' ORDER BY at_ms")
      .all();
    expect(rows).toEqual([
      { actor_subject: 'admin-cli', actor_role: 'it_admin', outcome: 'success' },
      { actor_subject: 'auditor-cli', actor_role: 'auditor', outcome: 'denied' },
    ]);
  });

  it('refuses a token for another audience with 401', async () => {
    const res = await s.call('GET', '/session', { token: await token('admin-cli', 'urn:some-other-api') });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('SVC-ADMIN-401');
    expect(res.json.detail).toMatch(/aud/);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('refuses a token from another issuer with 401', async () => {
    const res = await s.call('GET', '/session', {
      token: await signWithProviderKey({}, { issuer: 'https://evil.example.com' }),
    });
    expect(res.status).toBe(401);
    expect(res.json.detail).toMatch(/iss/);
  });

  it('refuses an expired token with 401', async () => {
    const res = await s.call('GET', '/session', {
      token: await signWithProviderKey({}, { expiresAt: Math.floor(Date.now() / 1000) - 120 }),
    });
    expect(res.status).toBe(401);
    expect(res.json.detail).toMatch(/exp/);
  });

  it('accepts a crafted token only because the provider key signed it (control for the cases above)', async () => {
    const res = await s.call('GET', '/session', { token: await signWithProviderKey({}) });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ subject: 'crafted', role: 'it_admin' });
  });

  it('refuses a token signed by another key with 401, with the same or an unknown key id', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    for (const kid of [op.signingKey.kid!, 'attacker-key']) {
      const forged = await new SignJWT({ groups: ['aa-admins'] })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setIssuer(op.issuer)
        .setAudience(AUDIENCE)
        .setSubject('mallory')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey);
      const res = await s.call('GET', '/session', { token: forged });
      expect(res.status, kid).toBe(401);
    }
  });

  it('refuses an unsigned (alg none) token with 401', async () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ iss: op.issuer, aud: AUDIENCE, sub: 'mallory', groups: ['aa-admins'], exp: now + 600 })}.`;
    const res = await s.call('GET', '/session', { token: unsigned });
    expect(res.status).toBe(401);
  });

  it('answers 403 with a clear detail for a valid token without a role claim or without a mapped role', async () => {
    for (const client of ['norole-cli', 'stranger-cli']) {
      const res = await s.call('GET', '/session', { token: await token(client) });
      expect(res.status, client).toBe(403);
      expect(res.json.code).toBe('SVC-ADMIN-403');
      expect(res.json.detail).toMatch(/no role in claim groups/);
    }
  });

  it('audits a mutation attempt by a token without a mapped role as denied under its subject, with no role', async () => {
    const before = (await s.call('GET', '/channels')).json;
    for (const client of ['norole-cli', 'stranger-cli']) {
      const res = await s.call('PUT', '/channels', {
        token: await token(client),
        body: { channels: [{ id: 'chan_web', enabled: false }] },
      });
      expect(res.status, client).toBe(403);
      expect(res.json.code).toBe('SVC-ADMIN-403');
      expect(res.json.detail).toMatch(/no role in claim groups/);
      const row = s.server.db
        .prepare('SELECT actor_subject, actor_role, action, outcome, status, details FROM audit WHERE request_id = ?')
        .get(res.json.request_id);
      expect(row, client).toEqual({
        actor_subject: client,
        actor_role: null,
        action: 'channel.update',
        outcome: 'denied',
        status: 403,
        details: JSON.stringify({ reason: 'token carries no role in claim groups' }),
      });
    }
    expect((await s.call('GET', '/channels')).json).toEqual(before);
    // served by the audit API as stored: a null role is a valid actor in the contract
    const listed = await s.call('GET', '/audit?actor=stranger-cli', { role: 'auditor' });
    expect(listed.status).toBe(200);
    expect(listed.json.data).toMatchObject([
      { actor: { subject: 'stranger-cli', role: null }, action: 'channel.update', outcome: 'denied', status: 403 },
    ]);
  });

  it('audits it too on a settings write and on a path the router cannot read', async () => {
    const tok = await token('stranger-cli');
    for (const [method, path] of [
      ['PUT', '/settings'],
      ['POST', `/gateway/keys/${'k'.repeat(101)}/revoke`],
    ]) {
      const res = await s.call(method, path, { token: tok, body: {} });
      expect(res.status, path).toBe(403);
      const row = s.server.db
        .prepare('SELECT actor_subject, actor_role, outcome, status FROM audit WHERE request_id = ?')
        .get(res.json.request_id);
      expect(row, path).toEqual({ actor_subject: 'stranger-cli', actor_role: null, outcome: 'denied', status: 403 });
    }
  });

  it('does not audit a mutation attempt with a token that fails verification (401)', async () => {
    const count = () =>
      (s.server.db.prepare("SELECT count(*) AS n FROM audit WHERE action = 'channel.update'").get() as { n: number }).n;
    const n = count();
    const res = await s.call('PUT', '/channels', {
      token: await token('admin-cli', 'urn:some-other-api'),
      body: { channels: [{ id: 'chan_web', enabled: false }] },
    });
    expect(res.status).toBe(401);
    expect(count()).toBe(n);
  });

  it('refuses a provider-signed token without exp, or without a subject, with 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = { iss: op.issuer, aud: AUDIENCE, groups: ['aa-admins'] };
    const noExp = await s.call('GET', '/session', { token: await signExactly({ ...base, sub: 'crafted' }) });
    expect(noExp.status).toBe(401);
    expect(noExp.json.detail).toMatch(/"exp"/);
    for (const sub of [undefined, '', '   ']) {
      const res = await s.call('GET', '/session', {
        token: await signExactly({ ...base, exp: now + 600, ...(sub === undefined ? {} : { sub }) }),
      });
      expect(res.status, JSON.stringify(sub)).toBe(401);
      expect(res.json.detail).toMatch(/no subject in claim sub/);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    // nor may such a token create anything
    const create = await s.call('POST', '/gateway/keys', {
      token: await signExactly(base),
      body: { name: 'never-expiring' },
    });
    expect(create.status).toBe(401);
    // control: the same claims with exp and sub are accepted
    const ok = await s.call('GET', '/session', {
      token: await signExactly({ ...base, sub: 'crafted', exp: now + 600 }),
    });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({
      subject: 'crafted',
      role: 'it_admin',
      expires_at: new Date((now + 600) * 1000).toISOString(),
    });
  });

  it('keeps on-host tokens working beside SSO', async () => {
    const res = await s.call('GET', '/session', { role: 'auditor' });
    expect(res.status).toBe(200);
    expect(res.json.role).toBe('auditor');
  });

  it('counts refused identity-provider tokens for the audit by why: expired, unknown, malformed', async () => {
    // a minute of its own, later than any refusal of the tests before
    const minute = Date.now() - (Date.now() % 60_000) + 10 * 60_000;
    clock = minute + 1_000;
    try {
      const now = Math.floor(Date.now() / 1000);
      for (const bearer of [
        await signWithProviderKey({}, { expiresAt: now - 120 }),
        await token('admin-cli', 'urn:some-other-api'),
        await signWithProviderKey({}, { issuer: 'https://evil.example.com' }),
        'x.y.z',
      ])
        expect((await s.call('GET', '/session', { token: bearer })).status).toBe(401);
      // the first refusal of the next minute writes this one
      clock = minute + 61_000;
      expect((await s.call('GET', '/session', { role: null })).status).toBe(401);
    } finally {
      clock = undefined;
    }
    const rows = s.server.db.prepare("SELECT source_ip, details FROM audit WHERE action = 'auth.refused'").all() as {
      source_ip: string;
      details: string;
    }[];
    expect(rows.map((r) => ({ ...r, details: JSON.parse(r.details) }))).toContainEqual({
      source_ip: '127.0.0.1',
      details: {
        count: 4,
        first_at: new Date(minute + 1_000).toISOString().replace('.000Z', 'Z'),
        last_at: new Date(minute + 1_000).toISOString().replace('.000Z', 'Z'),
        reasons: { expired: 1, unknown: 2, malformed: 1 },
      },
    });
  });

  it('never stores a bearer token in the database', () => {
    const files = readdirSync(s.dataDir).map((f) => readFileSync(join(s.dataDir, f)).toString('latin1'));
    expect(issued.length).toBeGreaterThan(5);
    for (const t of [...issued, ...Object.values(s.tokens)]) {
      const signature = t.split('.').at(-1)!;
      for (const content of files) expect(content.includes(signature)).toBe(false);
    }
  });
});

describe('SSO configuration variants', () => {
  it('reads a nested role claim by dotted path (realm_access.roles)', async () => {
    const nested = await startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          sso: {
            issuer: op.issuer,
            audience: AUDIENCE,
            role_claim: 'realm_access.roles',
            subject_claim: 'sub',
            role_map: ROLE_MAP,
          },
        }),
    });
    try {
      const res = await nested.call('GET', '/session', {
        token: await signWithProviderKey({ groups: undefined, realm_access: { roles: ['aa-owners'] } }),
      });
      expect(res.status).toBe(200);
      expect(res.json.role).toBe('app_owner');
    } finally {
      await nested.close();
    }
  });

  it('answers 503, not 401, while the identity provider cannot be reached; on-host tokens still work', async () => {
    const gone = await startHttpPeer(() => {});
    const issuer = gone.url;
    await gone.close();
    const offline = await startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          sso: { issuer, audience: AUDIENCE, role_claim: 'groups', subject_claim: 'sub', role_map: ROLE_MAP },
        }),
    });
    try {
      const res = await offline.call('GET', '/session', { token: await signWithProviderKey({}, { issuer }) });
      expect(res.status).toBe(503);
      expect(res.json.detail).toMatch(/^cannot verify identity-provider tokens right now/);
      expect(res.headers['retry-after']).toBe('30');
      expect((await offline.call('GET', '/session')).status).toBe(200);
    } finally {
      await offline.close();
    }
  });

  it('answers 401 without contacting the identity provider for a bearer that is not a signed JWT from its issuer', async () => {
    const down = await startHttpPeer((_req, res) => res.writeHead(503).end());
    const server = await startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          sso: { issuer: down.url, audience: AUDIENCE, role_claim: 'groups', subject_claim: 'sub', role_map: ROLE_MAP },
        }),
    });
    try {
      const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const unsigned = `${enc({ alg: 'none' })}.${enc({ iss: down.url, aud: AUDIENCE, sub: 'mallory', groups: ['aa-admins'], exp: Math.floor(Date.now() / 1000) + 600 })}.`;
      for (const [what, bearer] of [
        ['not a JWT', 'x.y.z'],
        ['undecodable payload', `${enc({ alg: 'RS256' })}.not-json.sig`],
        ['unsigned', unsigned],
        ['another issuer', await signWithProviderKey({}, { issuer: 'https://evil.example.com' })],
        ['no issuer', await signExactly({ aud: AUDIENCE, sub: 'x', exp: Math.floor(Date.now() / 1000) + 600 })],
      ] as const) {
        const res = await server.call('GET', '/session', { token: bearer });
        expect(res.status, what).toBe(401);
        expect(res.headers['www-authenticate'], what).toMatch(/^Bearer/);
      }
      expect(down.paths).toEqual([]);
      // a plausible token from the configured issuer is what may wait on the provider
      const res = await server.call('GET', '/session', { token: await signWithProviderKey({}, { issuer: down.url }) });
      expect(res.status).toBe(503);
      expect(down.paths).toEqual(['/.well-known/openid-configuration']);
    } finally {
      await Promise.all([server.close(), down.close()]);
    }
  });
});

describe('SSO discovery', () => {
  it('does not fetch signing keys from a discovered jwks_uri over plain http to another host', async () => {
    const idp = await startHttpPeer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ issuer: idp.url, jwks_uri: 'http://keys.example.invalid/jwks' }));
    });
    const warnings: string[] = [];
    const server = await startTestServer({
      logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) }),
      config: (root) =>
        fixtureConfig(root, {
          sso: { issuer: idp.url, audience: AUDIENCE, role_claim: 'groups', subject_claim: 'sub', role_map: ROLE_MAP },
        }),
    });
    try {
      const res = await server.call('GET', '/session', { token: await signWithProviderKey({}, { issuer: idp.url }) });
      expect(res.status).toBe(503);
      expect(warnings.join('\n')).toMatch(/discovery names a jwks_uri that is not https/);
      expect(idp.paths).toEqual(['/.well-known/openid-configuration']);
    } finally {
      await Promise.all([server.close(), idp.close()]);
    }
  });
});

describe('SSO configuration file', () => {
  const load = (sso: object) => {
    const file = join(tempDir('aa-sso-cfg'), 'config.json');
    writeFileSync(file, JSON.stringify({ sso: { audience: AUDIENCE, ...sso } }));
    return () => loadConfig(file);
  };

  it('refuses an issuer or jwks_uri over plain http to a host that is not loopback, naming the field in one line', () => {
    for (const [field, sso] of [
      ['sso.issuer', { issuer: 'http://login.example.com/realms/acme' }],
      ['sso.issuer', { issuer: 'http://10.0.0.5:8080' }],
      ['sso.issuer', { issuer: 'http://127.0.0.1.nip.io' }],
      ['sso.issuer', { issuer: 'ftp://login.example.com' }],
      ['sso.jwks_uri', { issuer: 'https://login.example.com', jwks_uri: 'http://keys.example.com/jwks' }],
    ] as const) {
      expect(load(sso), JSON.stringify(sso)).toThrow(
        expect.objectContaining({
          name: 'ConfigError',
          message: expect.stringMatching(
            new RegExp(
              `^invalid config \\S+: ${field.replace('.', '\\.')}: must be an https URL \\(plain http only for a loopback host\\)$`,
            ),
          ),
        }),
      );
    }
  });

  it('accepts https anywhere and plain http on loopback', () => {
    for (const issuer of [
      'https://login.example.com/realms/acme',
      'http://127.0.0.1:8080',
      'http://127.9.9.9',
      'http://localhost:9000/realm',
      'http://[::1]:8080',
    ]) {
      expect(load({ issuer, jwks_uri: `${issuer}/jwks` })().sso?.issuer, issuer).toBe(issuer);
    }
  });
});
