import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface OidcClient {
  client_id: string;
  client_secret: string;
  /** values put in the role claim of this client's access tokens (omitted: no claim at all) */
  roles?: string[];
}

export interface OidcPeer {
  /** http://127.0.0.1:PORT, exactly as the provider announces it */
  issuer: string;
  /** the provider's signing key (private JWK with kid and alg), to sign edge-case tokens */
  signingKey: JWK;
  /** a client_credentials access token (JWT) for `clientId`, with audience `resource` */
  accessToken(clientId: string, resource?: string): Promise<string>;
  /** requests the provider's HTTP server received */
  requests(): number;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (the oidc-provider package) on loopback over http. Clients use the
 * client_credentials grant; resource indicators make their access tokens JWTs whose audience
 * is the requested resource, carrying the client's roles in `roleClaim`.
 */
export async function startOidcProvider(opts: { clients?: OidcClient[]; roleClaim?: string; defaultResource?: string } = {}): Promise<OidcPeer> {
  const clients = opts.clients ?? [];
  const roleClaim = opts.roleClaim ?? 'roles';
  const defaultResource = opts.defaultResource ?? 'urn:appliance-admin';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey: JWK = { ...(await exportJWK(privateKey)), kid: 'test-signing-key', alg: 'RS256', use: 'sig' };

  let requests = 0;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({ client_id: c.client_id, client_secret: c.client_secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] })),
    jwks: { keys: [signingKey] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => defaultResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          audience: resource,
          scope: 'admin',
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    ttl: { ClientCredentials: 600 },
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) => {
      const roles = clients.find((c) => c.client_id === token.clientId)?.roles;
      return roles ? { [roleClaim]: roles } : {};
    },
  });
  const handle = provider.callback();
  server.on('request', (req, res) => {
    requests++;
    handle(req, res);
  });

  return {
    issuer,
    signingKey,
    requests: () => requests,
    async accessToken(clientId, resource = defaultResource) {
      const client = clients.find((c) => c.client_id === clientId);
      if (!client) throw new Error(`no client ${clientId}`);
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'admin' }),
      });
      const json = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!json.access_token) throw new Error(`token endpoint: ${res.status} ${json.error}: ${json.error_description}`);
      return json.access_token;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
