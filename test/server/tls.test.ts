import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { tempDir } from '../helpers/fixtures.js';
import { makeCertificates } from '../helpers/tls.js';
import { issueToken, start, type ChildServer } from '../helpers/child-server.js';

/** Issue 5, point 8 (server half): `serve --tls-cert FILE --tls-key FILE` serves HTTPS. */
let server: ChildServer;
let caCert: string;
let token: string;

beforeAll(async () => {
  const root = tempDir('aa-tls');
  const pems = await makeCertificates();
  caCert = pems.ca;
  writeFileSync(join(root, 'server.crt'), pems.cert);
  writeFileSync(join(root, 'server.key'), pems.key, { mode: 0o600 });
  const dataDir = join(root, 'data');
  token = await issueToken(dataDir, 'it_admin', 'tls-admin');
  server = await start(dataDir, {
    args: ['--tls-cert', join(root, 'server.crt'), '--tls-key', join(root, 'server.key')],
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('serve over TLS', () => {
  it('prints an https URL', () => {
    expect(server.apiUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1\/admin$/);
  });

  it('answers over HTTPS to a client that trusts the CA', async () => {
    const trusting = new Agent({ connect: { ca: caCert } });
    try {
      const res = await request(`${server.url}/v1/admin/session`, {
        dispatcher: trusting,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toMatchObject({ subject: 'tls-admin', role: 'it_admin' });
      const created = await request(`${server.url}/v1/admin/gateway/keys`, {
        dispatcher: trusting,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'over-tls' }),
      });
      expect(created.statusCode).toBe(201);
      await created.body.dump();
    } finally {
      await trusting.close();
    }
  });

  it('fails with a certificate error for a client that does not trust the CA', async () => {
    const plain = new Agent();
    try {
      const err = await request(`${server.url}/v1/admin/session`, {
        dispatcher: plain,
        headers: { authorization: `Bearer ${token}` },
      }).then(
        () => null,
        (e: Error & { code?: string }) => e,
      );
      // the server sends only its own certificate: without the CA, the chain cannot be verified
      expect(err?.code).toMatch(/^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/);
    } finally {
      await plain.close();
    }
  });

  it('fails for a name the certificate does not cover, even with the CA trusted', async () => {
    const wrongName = new Agent({ connect: { ca: caCert, servername: 'other.example' } });
    try {
      const err = await request(`https://127.0.0.1:${server.port}/v1/admin/session`, { dispatcher: wrongName }).then(
        () => null,
        (e: Error & { code?: string }) => e,
      );
      expect(err?.code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    } finally {
      await wrongName.close();
    }
  });

  it('does not answer plain HTTP on the TLS port', async () => {
    const res = await request(`http://127.0.0.1:${server.port}/v1/admin/session`, {
      headers: { authorization: `Bearer ${token}` },
    }).then(
      (r) => r.statusCode,
      (e: Error & { code?: string }) => e.code,
    );
    // no answer at all (the TLS handshake fails), or an error status: never the data
    expect(typeof res === 'string' || (typeof res === 'number' && res >= 400), String(res)).toBe(true);
  });
});
