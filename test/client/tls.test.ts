import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, type AdminServer } from '../../src/server/app.js';
import { issueToken } from '../../src/server/tokens.js';
import { ApiClient } from '../../src/client/api-client.js';
import { TransportError, toTransportError } from '../../src/client/errors.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { makeCertificates } from '../helpers/tls.js';

/** `--ca-file`: the client trusts an appliance's own CA, and only then. */
let server: AdminServer;
let url: string;
let ca: string;
let token: string;

beforeAll(async () => {
  const certs = await makeCertificates('dashboard test CA');
  ca = certs.ca;
  const root = tempDir('aa-client-tls');
  server = await buildServer({
    dataDir: `${root}/data`,
    config: fixtureConfig(root),
    tls: { cert: certs.cert, key: certs.key },
  });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  url = `https://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
  token = issueToken(server.db, 'auditor', 'tls-auditor').token;
}, 30_000);
afterAll(async () => {
  await server?.close();
});

describe('TLS', () => {
  it('refuses an appliance certificate it cannot verify, as a TLS transport error', async () => {
    const c = new ApiClient({ url, token });
    const err = await c.call('session').catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.kind).toBe('tls');
    await c.close();
  });

  it('trusts the appliance with its CA given', async () => {
    const c = new ApiClient({ url, token, ca });
    expect((await c.call('session')).data).toMatchObject({ subject: 'tls-auditor', role: 'auditor' });
    await c.close();
  });
});

describe('certificate errors in plain words, whatever Node adds to them', () => {
  it("leaves out Node 24's advice about its own --use-system-ca flag and points to --ca-file", () => {
    // the message Node 24 gives for a certificate from an unknown CA
    const node24 = Object.assign(
      new Error(
        'unable to verify the first certificate; if the root CA is installed locally, try running Node.js with --use-system-ca',
      ),
      { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' },
    );
    const e = toTransportError(node24);
    expect(e.kind).toBe('tls');
    expect(e.message).toBe(
      "the appliance's TLS certificate is not trusted: unable to verify the first certificate (if the appliance uses its own CA, give it with --ca-file)",
    );
  });
});
