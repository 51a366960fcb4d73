import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOidcProvider, type OidcPeer } from '../helpers/oidc.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { login, type SessionInfo } from '../../src/client/session/index.js';

export const AUDIENCE = 'urn:appliance-admin';
export const CLIENT_ID = 'aa-cli';
export const ACCOUNTS = {
  alice: { roles: ['aa-admins'], name: 'Alice Admin' },
  olga: { roles: ['staff', 'aa-owners'], name: 'Olga Owner' },
  aude: { roles: ['aa-auditors'], name: 'Aude Auditor' },
  nobody: { roles: ['staff'] },
};
export type Account = keyof typeof ACCOUNTS;

/** A real OpenID provider with the device flow, and optionally the real appliance trusting it. */
export async function startProvider(opts: Parameters<typeof startOidcProvider>[0] = {}): Promise<OidcPeer> {
  return startOidcProvider({
    roleClaim: 'groups',
    deviceClients: [CLIENT_ID],
    accounts: ACCOUNTS,
    deviceInterval: 1,
    ...opts,
  });
}

export async function startAppliance(op: OidcPeer): Promise<TestServer> {
  return startTestServer({
    config: (root) =>
      fixtureConfig(root, {
        sso: {
          issuer: op.issuer,
          audience: AUDIENCE,
          role_claim: 'groups',
          subject_claim: 'sub',
          role_map: { 'aa-admins': 'it_admin', 'aa-owners': 'app_owner', 'aa-auditors': 'auditor' },
        },
      }),
  });
}

/** A fresh session file path in its own temp config directory (not created yet). */
export const sessionPath = () => join(tempDir('aa-cfg'), 'appliance-admin', 'session.json');

/** Signs `account` in through the device flow, approving on the provider's pages when the code is shown. */
export function signIn(
  op: OidcPeer,
  account: Account,
  file: string,
  extra: { applianceUrl?: string } = {},
): Promise<SessionInfo> {
  return login({
    issuer: op.issuer,
    clientId: CLIENT_ID,
    resource: AUDIENCE,
    file,
    ...extra,
    onPrompt: (p) => op.approveDevice(p.verificationUriComplete!, account),
  });
}

/** The stored sign-in file, as written. */
export const stored = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** Revokes the stored sign-in's refresh token at the provider (its revocation endpoint); true when it answered 200. */
export async function revokeRefreshToken(op: OidcPeer, file: string): Promise<boolean> {
  const res = await fetch(`${op.issuer}/token/revocation`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      token: stored(file).refresh_token,
      client_id: CLIENT_ID,
      token_type_hint: 'refresh_token',
    }),
  });
  return res.status === 200;
}
