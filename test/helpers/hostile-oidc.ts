import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';

/**
 * What a real provider would not send: a loopback identity provider that speaks just enough of
 * OpenID discovery and the device flow (RFC 8628) for a sign-in to run, with every text it
 * returns chosen by the test: the user code, the pages, the person's name, an error. Its token
 * endpoint answers the first poll (with tokens, or with `tokenError`), so no one has to approve.
 */
export interface HostileProviderScript {
  userCode: string;
  verificationUri?: (issuer: string) => string;
  verificationUriComplete?: (issuer: string) => string;
  /** the `name` claim of the ID token */
  name?: string;
  /** the token endpoint answers 400 with this OAuth error instead of tokens */
  tokenError?: { error: string; error_description?: string };
}

export interface HostileProvider {
  issuer: string;
  /** "POST /token", in arrival order */
  requests: string[];
  close(): Promise<void>;
}

export async function startHostileProvider(script: HostileProviderScript): Promise<HostileProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'hostile', alg: 'RS256', use: 'sig' };
  const requests: string[] = [];
  let issuer = '';
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const form = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  };
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    requests.push(`${req.method} ${path}`);
    switch (path) {
      case '/.well-known/openid-configuration':
        return send(res, 200, {
          issuer,
          device_authorization_endpoint: `${issuer}/device/auth`,
          token_endpoint: `${issuer}/token`,
          revocation_endpoint: `${issuer}/revoke`,
          jwks_uri: `${issuer}/jwks`,
          id_token_signing_alg_values_supported: ['RS256'],
        });
      case '/jwks':
        return send(res, 200, { keys: [jwk] });
      case '/device/auth':
        await form(req);
        return send(res, 200, {
          device_code: 'hostile-device-code',
          user_code: script.userCode,
          verification_uri: script.verificationUri?.(issuer) ?? `${issuer}/device`,
          verification_uri_complete: script.verificationUriComplete?.(issuer),
          expires_in: 120,
          interval: 1,
        });
      case '/token': {
        const body = await form(req);
        if (script.tokenError) return send(res, 400, script.tokenError);
        const clientId = body.get('client_id') ?? '';
        const now = Math.floor(Date.now() / 1000);
        const idToken = await new SignJWT({ name: script.name })
          .setProtectedHeader({ alg: 'RS256', kid: 'hostile' })
          .setIssuer(issuer)
          .setAudience(clientId)
          .setSubject('hostile-subject')
          .setIssuedAt(now)
          .setExpirationTime(now + 600)
          .sign(privateKey);
        return send(res, 200, {
          access_token: 'hostile-access-token',
          token_type: 'Bearer',
          expires_in: 600,
          refresh_token: 'hostile-refresh-token',
          id_token: idToken,
        });
      }
      case '/revoke':
        await form(req);
        res.writeHead(200).end();
        return;
      default:
        return send(res, 404, { error: 'not_found' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
