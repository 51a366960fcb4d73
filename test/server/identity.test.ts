import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import { generate } from 'selfsigned';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { startHttpPeer, type HttpPeer } from '../helpers/http-peer.js';
import { startOidcProvider, type OidcPeer } from '../helpers/oidc.js';
import { BILLION_LAUGHS, samlMetadata, testCertificate, XXE_FILE } from '../helpers/saml.js';
import { checkAddress } from '../../src/server/identity/address-policy.js';
import { fetchChecked } from '../../src/server/identity/outbound.js';

const LAB_TIMEOUT_MS = 1500;
const DEFAULT_POLICY = { allow_http: false, allow_private_addresses: false, timeout_ms: 5000, max_bytes: 1048576 };

let lab: TestServer; // allows http and loopback, as a lab would
let strict: TestServer; // the default outbound policy
let op: OidcPeer;
let peer: HttpPeer;
let docs: Record<string, { body: string; type?: string }>;

/** Every table but the audit trail, to show the check saves nothing. */
const storage = (s: TestServer) =>
  (
    s.server.db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'audit%' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[]
  ).map(({ name }) => [name, s.server.db.prepare(`SELECT * FROM "${name}"`).all()]);

const stepOf = (res: { json: { steps: { id: string }[] } }, id: string) =>
  res.json.steps.find((x) => x.id === id) as { id: string; status: string; detail: string };
const statuses = (res: { json: { steps: { id: string; status: string }[] } }) =>
  Object.fromEntries(res.json.steps.map((x) => [x.id, x.status]));

beforeAll(async () => {
  op = await startOidcProvider();
  const now = Date.now();
  const [goodCert, expiredCert, expiringCert] = await Promise.all([
    testCertificate(-1, 365),
    testCertificate(-400, -2),
    testCertificate(-300, 10),
  ]);
  peer = await startHttpPeer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/redirect/.well-known/openid-configuration') {
      res.writeHead(302, { location: `${peer.url}/moved-here` }).end();
    } else if (path === '/big/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length to refuse early
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 3 * 2 ** 20) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => {});
      pump();
    } else if (path === '/slow/.well-known/openid-configuration') {
      const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 20_000);
      res.on('close', () => clearTimeout(timer));
    } else if (docs[path]) {
      res.writeHead(200, { 'content-type': docs[path].type ?? 'application/json' }).end(docs[path].body);
    } else {
      res.writeHead(404).end();
    }
  });
  docs = {
    '/broken/.well-known/openid-configuration': {
      body: JSON.stringify({
        issuer: `${peer.url}/broken`,
        authorization_endpoint: `${peer.url}/broken/auth`,
        token_endpoint: `${peer.url}/broken/token`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      }),
    },
    '/imposter/.well-known/openid-configuration': {
      body: JSON.stringify({
        issuer: op.issuer,
        authorization_endpoint: `${op.issuer}/auth`,
        token_endpoint: `${op.issuer}/token`,
        jwks_uri: `${op.issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      }),
    },
    '/saml/good.xml': {
      type: 'application/samlmetadata+xml',
      body: samlMetadata({
        entityId: 'https://idp.test/saml',
        ssoUrl: 'https://idp.test/sso?a=1&amp;b=2',
        certPem: goodCert,
      }),
    },
    '/saml/expired.xml': {
      type: 'application/xml',
      body: samlMetadata({
        entityId: 'https://idp.test/saml',
        ssoUrl: 'https://idp.test/sso',
        certPem: goodCert,
        validUntil: new Date(now - 86_400_000),
      }),
    },
    '/saml/no-valid-until.xml': {
      type: 'application/xml',
      body: samlMetadata({
        entityId: 'https://idp.test/saml',
        ssoUrl: 'https://idp.test/sso',
        certPem: goodCert,
        validUntil: null,
      }),
    },
    '/saml/expired-cert.xml': {
      type: 'application/xml',
      body: samlMetadata({ entityId: 'https://idp.test/saml', ssoUrl: 'https://idp.test/sso', certPem: expiredCert }),
    },
    '/saml/expiring-cert.xml': {
      type: 'application/xml',
      body: samlMetadata({ entityId: 'https://idp.test/saml', ssoUrl: 'https://idp.test/sso', certPem: expiringCert }),
    },
    '/saml/laughs.xml': { type: 'application/xml', body: BILLION_LAUGHS },
    '/saml/xxe.xml': { type: 'application/xml', body: XXE_FILE },
    '/saml/not-xml.xml': { type: 'text/html', body: '<html><body>login</b></html>' },
  };
  [lab, strict] = await Promise.all([
    startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          identity_test: {
            allow_http: true,
            allow_private_addresses: true,
            timeout_ms: LAB_TIMEOUT_MS,
            max_bytes: 1048576,
          },
        }),
    }),
    startTestServer({ config: (root) => fixtureConfig(root, { identity_test: DEFAULT_POLICY }) }),
  ]);
});

afterAll(async () => {
  await Promise.all([lab?.close(), strict?.close(), op?.close(), peer?.close()]);
});

const oidc = (s: TestServer, issuer_url: string, role: 'it_admin' | 'app_owner' | 'auditor' = 'it_admin') =>
  s.call('POST', '/identity/test', { role, body: { provider: 'oidc', issuer_url } });
const saml = (s: TestServer, metadata_url: string) =>
  s.call('POST', '/identity/test', { body: { provider: 'saml', metadata_url } });

describe('OIDC pre-check against a real provider', () => {
  it('passes every step against oidc-provider, saves nothing, and audits host but not URL', async () => {
    const before = storage(lab);
    const res = await oidc(lab, op.issuer, 'app_owner');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: true, provider: 'oidc', target: op.issuer });
    expect(res.json.steps.map((x: { id: string }) => x.id)).toEqual(['resolve', 'discovery', 'issuer-match', 'jwks']);
    expect(Object.values(statuses(res))).toEqual(['passed', 'passed', 'passed', 'passed']);
    expect(stepOf(res, 'jwks').detail).toMatch(/test-signing-key|RS256/);
    expect(res.json.checked_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(storage(lab)).toEqual(before);

    const entry = lab.server.db
      .prepare("SELECT * FROM audit WHERE action = 'identity.test' AND request_id = ?")
      .get(res.headers['x-request-id']) as Record<string, string>;
    expect(entry).toMatchObject({
      outcome: 'success',
      status: 200,
      actor_role: 'app_owner',
      target_id: new URL(op.issuer).host,
    });
    expect(JSON.parse(entry.details)).toEqual({
      provider: 'oidc',
      host: new URL(op.issuer).host,
      ok: true,
      failed_step: null,
    });
    expect(entry.details).not.toContain('http');
  });

  it('fails issuer-match when the URL differs by a trailing slash, and skips the JWKS', async () => {
    const res = await oidc(lab, `${op.issuer}/`);
    expect(res.json.ok).toBe(false);
    expect(statuses(res)).toEqual({
      resolve: 'passed',
      discovery: 'passed',
      'issuer-match': 'failed',
      jwks: 'skipped',
    });
    expect(stepOf(res, 'issuer-match').detail).toMatch(/trailing slash/);
    const entry = lab.server.db
      .prepare('SELECT outcome, details FROM audit WHERE request_id = ?')
      .get(res.headers['x-request-id']) as { outcome: string; details: string };
    expect(entry.outcome).toBe('success');
    expect(JSON.parse(entry.details)).toMatchObject({ ok: false, failed_step: 'issuer-match' });
  });

  it('fails issuer-match when the document announces another issuer', async () => {
    const res = await oidc(lab, `${peer.url}/imposter`);
    expect(res.json.ok).toBe(false);
    expect(stepOf(res, 'issuer-match')).toMatchObject({ status: 'failed' });
    expect(stepOf(res, 'issuer-match').detail).toContain(op.issuer);
  });

  it('fails discovery when a required field (jwks_uri) is missing', async () => {
    const res = await oidc(lab, `${peer.url}/broken`);
    expect(res.json.ok).toBe(false);
    expect(statuses(res)).toEqual({
      resolve: 'passed',
      discovery: 'failed',
      'issuer-match': 'skipped',
      jwks: 'skipped',
    });
    expect(stepOf(res, 'discovery').detail).toMatch(/jwks_uri/);
  });

  it('fails discovery on a 404 (issuer path that does not exist)', async () => {
    const res = await oidc(lab, `${op.issuer}/nowhere`);
    expect(res.json.ok).toBe(false);
    expect(stepOf(res, 'discovery').detail).toMatch(/404/);
  });

  it('does not follow a redirect and names its Location', async () => {
    const res = await oidc(lab, `${peer.url}/redirect`);
    expect(res.json.ok).toBe(false);
    expect(stepOf(res, 'discovery').status).toBe('failed');
    expect(stepOf(res, 'discovery').detail).toContain(`302 redirecting to ${peer.url}/moved-here`);
    expect(peer.paths).not.toContain('/moved-here');
  });

  it('stops reading a body over the size cap', async () => {
    const res = await oidc(lab, `${peer.url}/big`);
    expect(res.json.ok).toBe(false);
    expect(stepOf(res, 'discovery').detail).toMatch(/1048576-byte limit/);
  });

  it('gives up on a server that does not answer, in bounded time', async () => {
    const started = Date.now();
    const res = await oidc(lab, `${peer.url}/slow`);
    const took = Date.now() - started;
    expect(res.json.ok).toBe(false);
    expect(stepOf(res, 'discovery').detail).toMatch(new RegExp(`within ${LAB_TIMEOUT_MS} ms`));
    expect(took).toBeGreaterThanOrEqual(LAB_TIMEOUT_MS - 50);
    expect(took).toBeLessThan(LAB_TIMEOUT_MS + 3000);
  });

  it('reports a refused connection as a failed step', async () => {
    const closed = await startHttpPeer(() => {});
    const url = closed.url;
    await closed.close();
    const res = await oidc(lab, url);
    expect(res.json.ok).toBe(false);
    expect(stepOf(res, 'discovery').detail).toMatch(/connection refused/);
  });
});

describe('SAML pre-check against served metadata', () => {
  it('passes good metadata with a valid signing certificate', async () => {
    const res = await saml(lab, `${peer.url}/saml/good.xml`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: true, provider: 'saml' });
    expect(statuses(res)).toEqual({
      resolve: 'passed',
      fetch: 'passed',
      parse: 'passed',
      'entity-descriptor': 'passed',
      validity: 'passed',
      'idp-sso': 'passed',
      'signing-certificate': 'passed',
    });
    expect(stepOf(res, 'entity-descriptor').detail).toContain('https://idp.test/saml');
    expect(stepOf(res, 'idp-sso').detail).toMatch(/2 SingleSignOnService endpoints \(HTTP-Redirect, HTTP-POST\)/);
    expect(stepOf(res, 'signing-certificate').detail).toContain('CN=idp.test');
    const entry = lab.server.db
      .prepare('SELECT outcome, target_type, target_id, details FROM audit WHERE request_id = ?')
      .get(res.headers['x-request-id']) as Record<string, string>;
    expect(entry).toMatchObject({
      outcome: 'success',
      target_type: 'identity_provider',
      target_id: `127.0.0.1:${peer.port}`,
    });
    expect(JSON.parse(entry.details)).toEqual({
      provider: 'saml',
      host: `127.0.0.1:${peer.port}`,
      ok: true,
      failed_step: null,
    });
    expect(entry.details).not.toMatch(/saml\/good|\.xml/);
  });

  it('fails expired metadata (validUntil in the past) but still checks the rest', async () => {
    const res = await saml(lab, `${peer.url}/saml/expired.xml`);
    expect(res.json.ok).toBe(false);
    expect(stepOf(res, 'validity')).toMatchObject({ status: 'failed' });
    expect(stepOf(res, 'validity').detail).toMatch(/expired/);
    expect(stepOf(res, 'idp-sso').status).toBe('passed');
    expect(stepOf(res, 'signing-certificate').status).toBe('passed');
  });

  it('warns when validUntil is absent', async () => {
    const res = await saml(lab, `${peer.url}/saml/no-valid-until.xml`);
    expect(res.json.ok).toBe(true);
    expect(stepOf(res, 'validity').status).toBe('warning');
  });

  it('fails an expired signing certificate and warns on one expiring within 30 days', async () => {
    const expired = await saml(lab, `${peer.url}/saml/expired-cert.xml`);
    expect(expired.json.ok).toBe(false);
    expect(stepOf(expired, 'signing-certificate')).toMatchObject({ status: 'failed' });
    expect(stepOf(expired, 'signing-certificate').detail).toMatch(/expired/);
    const expiring = await saml(lab, `${peer.url}/saml/expiring-cert.xml`);
    expect(expiring.json.ok).toBe(true);
    expect(stepOf(expiring, 'signing-certificate').status).toBe('warning');
    expect(stepOf(expiring, 'signing-certificate').detail).toMatch(/expires in (9|10) days/);
  });

  it('refuses an entity-expansion bomb without expanding it', async () => {
    const started = Date.now();
    const res = await saml(lab, `${peer.url}/saml/laughs.xml`);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(res.json.ok).toBe(false);
    expect(statuses(res)).toMatchObject({
      fetch: 'passed',
      parse: 'failed',
      'entity-descriptor': 'skipped',
      'signing-certificate': 'skipped',
    });
    expect(stepOf(res, 'parse').detail).toMatch(/DOCTYPE/);
    expect(res.text).not.toContain('lollol');
  });

  it('refuses an external entity (XXE) without reading the file', async () => {
    const res = await saml(lab, `${peer.url}/saml/xxe.xml`);
    expect(res.json.ok).toBe(false);
    expect(stepOf(res, 'parse').status).toBe('failed');
    expect(res.text).not.toMatch(/root:x:0/);
  });

  it('fails a page that is not metadata, warning on its content type', async () => {
    const res = await saml(lab, `${peer.url}/saml/not-xml.xml`);
    expect(res.json.ok).toBe(false);
    expect(stepOf(res, 'fetch').status).toBe('warning');
    expect(stepOf(res, 'parse').status).toBe('failed');
  });
});

describe('outbound guard with the default policy', () => {
  it.each([
    ['http:// target', (p: HttpPeer) => `http://127.0.0.1:${p.port}`, /only https/],
    ['loopback literal', (p: HttpPeer) => `https://127.0.0.1:${p.port}`, /127\.0\.0\.1 is a loopback address/],
    ['cloud metadata address', () => 'https://169.254.169.254', /169\.254\.169\.254 is a cloud metadata address/],
    [
      'name resolving to loopback',
      (p: HttpPeer) => `https://localhost:${p.port}`,
      /localhost resolves to (127\.0\.0\.1|::1)/,
    ],
    [
      'IPv4-mapped loopback',
      (p: HttpPeer) => `https://[::ffff:127.0.0.1]:${p.port}`,
      /loopback address \(embedded in an IPv6 address\)/,
    ],
    ['private address', () => 'https://10.1.2.3', /private address/],
  ])('refuses a %s before connecting', async (_label, urlOf, detail) => {
    const connectionsBefore = peer.connections();
    const res = await oidc(strict, urlOf(peer));
    expect(res.status).toBe(200);
    expect(res.json.ok).toBe(false);
    expect(statuses(res)).toEqual({
      resolve: 'failed',
      discovery: 'skipped',
      'issuer-match': 'skipped',
      jwks: 'skipped',
    });
    expect(stepOf(res, 'resolve').detail).toMatch(detail);
    expect(peer.connections()).toBe(connectionsBefore);
  });

  it('refuses SAML metadata over http', async () => {
    const connectionsBefore = peer.connections();
    const res = await saml(strict, `${peer.url}/saml/good.xml`);
    expect(res.json.ok).toBe(false);
    expect(stepOf(res, 'resolve').status).toBe('failed');
    expect(stepOf(res, 'fetch').status).toBe('skipped');
    expect(peer.connections()).toBe(connectionsBefore);
  });

  it('guards a jwks_uri found in the document too', async () => {
    // the lab allows the discovery host; the strict policy would refuse the jwks host
    const res = await oidc(lab, op.issuer);
    expect(res.json.ok).toBe(true);
    const viaStrict = await oidc(strict, op.issuer);
    expect(stepOf(viaStrict, 'resolve').status).toBe('failed');
  });

  it('connects to the checked address, keeping the name for Host and TLS', async () => {
    const before = peer.paths.length;
    // the name does not resolve at all: reaching the peer proves no second lookup happens
    const target = {
      url: new URL(`http://idp.rebind.invalid:${peer.port}/saml/good.xml`),
      addresses: [{ address: '127.0.0.1', family: 4 }],
    };
    const r = await fetchChecked(
      target,
      { ...DEFAULT_POLICY, allow_http: true },
      AbortSignal.timeout(3000),
      'application/xml',
    );
    expect(r.ok).toBe(true);
    expect(peer.paths.slice(before)).toEqual(['/saml/good.xml']);
    expect(peer.hosts.at(-1)).toBe(`idp.rebind.invalid:${peer.port}`);

    // over https the TLS server name stays the original name, and certificates are verified
    const pems = await generate([{ name: 'commonName', value: 'idp.rebind.invalid' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    const seenNames: string[] = [];
    const context = createSecureContext({ key: pems.private, cert: pems.cert });
    const tlsServer: HttpsServer = createHttpsServer(
      {
        key: pems.private,
        cert: pems.cert,
        SNICallback: (name, cb) => {
          seenNames.push(name);
          cb(null, context);
        },
      },
      (_q, s) => s.end('{}'),
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    try {
      const port = (tlsServer.address() as AddressInfo).port;
      const tls = await fetchChecked(
        { url: new URL(`https://idp.rebind.invalid:${port}/`), addresses: [{ address: '127.0.0.1', family: 4 }] },
        DEFAULT_POLICY,
        AbortSignal.timeout(3000),
        'application/json',
      );
      expect(tls.ok).toBe(false);
      expect(tls.ok ? '' : tls.detail).toMatch(/TLS failed .*SELF_SIGNED|self-signed/i);
      expect(seenNames).toContain('idp.rebind.invalid');
    } finally {
      tlsServer.closeAllConnections();
      await new Promise((resolve) => tlsServer.close(resolve));
    }
  });
});

describe('identity test input and roles', () => {
  it.each([
    ['not a URL', { provider: 'oidc', issuer_url: 'not a url' }],
    ['an unknown provider', { provider: 'ldap', issuer_url: 'https://idp.example.com' }],
    [
      'both URLs',
      { provider: 'oidc', issuer_url: 'https://idp.example.com', metadata_url: 'https://idp.example.com/md' },
    ],
    ["the other provider's field", { provider: 'saml', issuer_url: 'https://idp.example.com' }],
    ['a non-http scheme', { provider: 'saml', metadata_url: 'file:///etc/passwd' }],
    ['an issuer with a query', { provider: 'oidc', issuer_url: 'https://idp.example.com/?tenant=a' }],
  ])('answers 400 for %s', async (_label, body) => {
    const res = await lab.call('POST', '/identity/test', { body });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('SVC-ADMIN-400');
  });

  it('refuses a URL with credentials with 400 and keeps them out of the audit trail', async () => {
    const res = await lab.call('POST', '/identity/test', {
      body: { provider: 'saml', metadata_url: `http://admin:hunter2@127.0.0.1:${peer.port}/saml/good.xml` },
    });
    expect(res.status).toBe(400);
    expect(res.json.detail).toMatch(/credentials/);
    expect(res.text).not.toContain('hunter2');
    const entry = lab.server.db
      .prepare('SELECT outcome, status, target_id, details FROM audit WHERE request_id = ?')
      .get(res.headers['x-request-id']) as Record<string, unknown>;
    expect(entry).toMatchObject({ outcome: 'failed', status: 400, target_id: `127.0.0.1:${peer.port}` });
    expect(JSON.stringify(entry)).not.toContain('hunter2');
  });

  it('denies an auditor with 403 and audits the denial', async () => {
    const requestsBefore = op.requests();
    const res = await oidc(lab, op.issuer, 'auditor');
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('SVC-ADMIN-403');
    expect(op.requests()).toBe(requestsBefore);
    const entry = lab.server.db
      .prepare('SELECT outcome, status FROM audit WHERE request_id = ?')
      .get(res.headers['x-request-id']);
    expect(entry).toEqual({ outcome: 'denied', status: 403 });
  });
});

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.10.10', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a00:1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['100.64.0.1', 'carrier-grade'],
    ['fe80::1%eth0', 'link-local'],
  ])('refuses %s (%s)', (address, reason) => {
    const verdict = checkAddress(address, false);
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toContain(reason);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
    '1.1.1.1',
  ])('allows public %s', (address) => {
    expect(checkAddress(address, false)).toEqual({ allowed: true });
  });

  it('lets a lab reach loopback and private ranges but never metadata, unspecified or multicast', () => {
    for (const a of ['127.0.0.1', '::1', '10.0.0.1', '192.168.0.10', 'fe80::1', '::ffff:127.0.0.1'])
      expect(checkAddress(a, true).allowed).toBe(true);
    for (const a of [
      '169.254.169.254',
      'fd00:ec2::254',
      '100.100.100.200',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '::ffff:169.254.169.254',
    ])
      expect(checkAddress(a, true).allowed).toBe(false);
  });
});
