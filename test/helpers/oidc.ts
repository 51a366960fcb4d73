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

/** A person who can sign in through the device flow's development login page (any password). */
export interface OidcAccount {
  /** values put in the role claim of this account's access tokens */
  roles?: string[];
  /** the `name` claim of the ID token */
  name?: string;
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
  /** token endpoint requests by grant_type (e.g. 'refresh_token') */
  tokenRequests(grantType: string): number;
  /**
   * Acts as the person at the browser: opens `verificationUri` (verification_uri_complete, or
   * verification_uri plus `userCode`), confirms the code, signs in as `accountId` on the
   * development login page and consents. `deny` presses Abort on the confirmation page instead.
   */
  approveDevice(
    verificationUri: string,
    accountId: string,
    opts?: { userCode?: string; deny?: boolean },
  ): Promise<void>;
  /** the next `n` token requests with the device_code grant are answered slow_down */
  slowDownNext(n: number): void;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (the oidc-provider package) on loopback over http. Clients use the
 * client_credentials grant; resource indicators make their access tokens JWTs whose audience
 * is the requested resource, carrying the client's roles in `roleClaim`.
 */
export async function startOidcProvider(
  opts: {
    clients?: OidcClient[];
    roleClaim?: string;
    defaultResource?: string;
    /** public clients (no secret) allowed the device authorization grant and refresh tokens */
    deviceClients?: string[];
    /** accounts that can sign in on the device flow's pages, by account id (= `sub`) */
    accounts?: Record<string, OidcAccount>;
    /** seconds; lifetime of access tokens for the resource (default 600) */
    accessTokenTTL?: number;
    /** seconds; lifetime of refresh tokens (default 3600) */
    refreshTokenTTL?: number;
    /** seconds; lifetime of device codes (default 600) */
    deviceCodeTTL?: number;
    /** seconds; the `interval` announced in device authorization responses (RFC 8628 default 5 when absent) */
    deviceInterval?: number;
  } = {},
): Promise<OidcPeer> {
  const clients = opts.clients ?? [];
  const accounts = opts.accounts ?? {};
  const deviceClients = opts.deviceClients ?? [];
  const roleClaim = opts.roleClaim ?? 'roles';
  const defaultResource = opts.defaultResource ?? 'urn:appliance-admin';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey: JWK = { ...(await exportJWK(privateKey)), kid: 'test-signing-key', alg: 'RS256', use: 'sig' };

  let requests = 0;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      ...clients.map((c) => ({
        client_id: c.client_id,
        client_secret: c.client_secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      })),
      ...deviceClients.map((client_id) => ({
        client_id,
        token_endpoint_auth_method: 'none',
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
        redirect_uris: [],
        response_types: [],
      })),
    ],
    jwks: { keys: [signingKey] },
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id, name: accounts[id]?.name }),
    }),
    claims: { openid: ['sub'], profile: ['name'] },
    conformIdTokenClaims: false,
    rotateRefreshToken: true,
    features: {
      devInteractions: { enabled: deviceClients.length > 0 },
      deviceFlow: { enabled: deviceClients.length > 0 },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => defaultResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          audience: resource,
          scope: 'admin',
          accessTokenTTL: opts.accessTokenTTL ?? 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    ttl: {
      ClientCredentials: 600,
      DeviceCode: opts.deviceCodeTTL ?? 600,
      RefreshToken: opts.refreshTokenTTL ?? 3600,
      Grant: 3600,
      IdToken: 600,
      Interaction: 600,
      Session: 3600,
    },
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string; accountId?: string }) => {
      const roles = token.accountId
        ? accounts[token.accountId]?.roles
        : clients.find((c) => c.client_id === token.clientId)?.roles;
      return roles ? { [roleClaim]: roles } : {};
    },
  });
  if (opts.deviceInterval !== undefined) {
    provider.on('device_authorization.success', (_ctx, body) => {
      (body as Record<string, unknown>).interval = opts.deviceInterval;
    });
  }
  const tokenRequests = new Map<string, number>();
  let slowDowns = 0;
  // oidc-provider never answers slow_down; a middleware in front of its routes does, reading
  // the body itself and handing it on already parsed. Grant events count every token request.
  provider.use(async (ctx: KoaContext, next: () => Promise<void>) => {
    if (ctx.path === '/token' && ctx.method === 'POST' && slowDowns > 0) {
      const body = await readForm(ctx);
      if (body.get('grant_type') === DEVICE_GRANT) {
        slowDowns--;
        tokenRequests.set(DEVICE_GRANT, (tokenRequests.get(DEVICE_GRANT) ?? 0) + 1);
        ctx.status = 400;
        ctx.body = { error: 'slow_down', error_description: 'poll less often' };
        return;
      }
    }
    await next();
  });
  provider.on('grant.success', (ctx) => count((ctx as KoaContext).oidc?.params?.grant_type));
  provider.on('grant.error', (ctx) => count((ctx as KoaContext).oidc?.params?.grant_type));
  const count = (grantType: unknown) => {
    if (typeof grantType === 'string') tokenRequests.set(grantType, (tokenRequests.get(grantType) ?? 0) + 1);
  };
  const handle = provider.callback();
  server.on('request', (req, res) => {
    requests++;
    handle(req, res);
  });

  return {
    issuer,
    signingKey,
    requests: () => requests,
    tokenRequests: (grantType) => tokenRequests.get(grantType) ?? 0,
    slowDownNext(n) {
      slowDowns = n;
    },
    approveDevice: (verificationUri, accountId, o = {}) => approveDevice(verificationUri, accountId, o),
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

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

interface KoaContext {
  path: string;
  method: string;
  status: number;
  body: unknown;
  req: NodeJS.ReadableStream;
  request: { body?: unknown };
  oidc?: { params?: { grant_type?: unknown } };
}

/** Reads the urlencoded body and leaves it where the provider's own body parser looks first. */
async function readForm(ctx: KoaContext): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(Buffer.from(chunk as Buffer));
  const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  ctx.request.body = Object.fromEntries(params);
  return params;
}

/**
 * Drives the provider's own device-flow pages like a browser would: cookies kept per origin,
 * redirects followed by hand, each page's single form submitted with its hidden fields.
 */
async function approveDevice(
  verificationUri: string,
  accountId: string,
  o: { userCode?: string; deny?: boolean },
): Promise<void> {
  const cookies = new Map<string, string>();
  const send = async (url: string, form?: Record<string, string>): Promise<{ url: string; html: string }> => {
    for (let hops = 0; hops < 20; hops++) {
      const res = await fetch(url, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form ? new URLSearchParams(form) : undefined,
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair.indexOf('=');
        const value = pair.slice(eq + 1);
        if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(pair.slice(0, eq));
        else cookies.set(pair.slice(0, eq), value);
      }
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        url = new URL(location, url).href;
        form = undefined;
        continue;
      }
      const html = await res.text();
      if (res.status !== 200) throw new Error(`device page ${url} answered ${res.status}: ${html.slice(0, 300)}`);
      return { url, html };
    }
    throw new Error('too many redirects on the device pages');
  };
  const formOf = (page: { url: string; html: string }) => {
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page.html);
    if (!form) return undefined;
    const fields: Record<string, string> = {};
    for (const input of form[2].matchAll(/<input\b([^>]*)>/g)) {
      const name = /name="([^"]*)"/.exec(input[1])?.[1];
      if (name) fields[name] = /value="([^"]*)"/.exec(input[1])?.[1] ?? '';
    }
    return { action: new URL(form[1].replace(/&amp;/g, '&'), page.url).href, fields };
  };

  const start = new URL(verificationUri);
  if (o.userCode) start.searchParams.set('user_code', o.userCode);
  let page = await send(start.href);
  for (let step = 0; step < 10; step++) {
    if (/Sign-in Success/.test(page.html)) return;
    if (/interrupted|access_denied|aborted/i.test(page.html) && o.deny) return;
    const form = formOf(page);
    if (!form)
      throw new Error(`unexpected device page: ${page.html.replace(/<style[\s\S]*?<\/style>/, '').slice(0, 500)}`);
    if ('confirm' in form.fields && o.deny) {
      delete form.fields.confirm;
      form.fields.abort = 'yes';
    }
    if ('login' in form.fields) Object.assign(form.fields, { login: accountId, password: 'any' });
    page = await send(form.action, form.fields);
  }
  throw new Error('device approval did not finish');
}
