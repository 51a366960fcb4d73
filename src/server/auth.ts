import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Db } from './db/open.js';
import type { ServerConfig } from './config.js';
import { ApiError } from './errors.js';
import { findToken, TOKEN_PREFIX } from './tokens.js';
import { ROLES, type Role } from '../contract/index.js';

export interface Principal {
  subject: string;
  role: Role;
  kind: 'token' | 'sso';
  expires_at: string | null;
}

const unauthorized = (detail: string) =>
  new ApiError(401, detail, { headers: { 'WWW-Authenticate': 'Bearer realm="appliance-admin"' } });

/** Highest role first: a subject holding several gets the strongest it was granted. */
const RANK: Role[] = ['it_admin', 'app_owner', 'auditor'];

export function rolesFromClaims(payload: JWTPayload, sso: NonNullable<ServerConfig['sso']>): Role | null {
  const raw = payload[sso.role_claim];
  const values = (Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[\s,]+/) : []).filter(
    (v): v is string => typeof v === 'string',
  );
  const roles = new Set<Role>();
  for (const v of values) {
    const mapped = sso.role_map[v] ?? ((ROLES as readonly string[]).includes(v) ? (v as Role) : undefined);
    if (mapped) roles.add(mapped);
  }
  return RANK.find((r) => roles.has(r)) ?? null;
}

export type Authenticator = (authorization: string | undefined) => Promise<Principal>;

export function createAuthenticator(db: Db, config: ServerConfig): Authenticator {
  const sso = config.sso;
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const getJwks = async () => {
    if (jwks) return jwks;
    let uri = sso!.jwks_uri;
    if (!uri) {
      const res = await fetch(new URL('.well-known/openid-configuration', sso!.issuer.replace(/\/?$/, '/')));
      if (!res.ok) throw new Error(`discovery answered ${res.status}`);
      uri = ((await res.json()) as { jwks_uri?: string }).jwks_uri;
      if (!uri) throw new Error('discovery has no jwks_uri');
    }
    jwks = createRemoteJWKSet(new URL(uri));
    return jwks;
  };

  return async (authorization) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!m) throw unauthorized('missing bearer credential');
    const credential = m[1];
    if (credential.startsWith(TOKEN_PREFIX)) {
      const row = findToken(db, credential);
      if (!row) throw unauthorized('unknown, expired or revoked token');
      return { subject: row.name, role: row.role, kind: 'token', expires_at: row.expires_at };
    }
    if (sso && credential.split('.').length === 3) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(credential, await getJwks(), { issuer: sso.issuer, audience: sso.audience }));
      } catch (err) {
        throw unauthorized(`identity-provider token rejected: ${(err as Error).message}`);
      }
      const role = rolesFromClaims(payload, sso);
      if (!role) throw new ApiError(403, `token carries no role in claim ${sso.role_claim}`);
      const subject = String(payload[sso.subject_claim] ?? payload.sub ?? 'unknown');
      return { subject, role, kind: 'sso', expires_at: payload.exp ? new Date(payload.exp * 1000).toISOString() : null };
    }
    throw unauthorized('unknown credential');
  };
}
