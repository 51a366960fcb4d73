import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Db } from './db/open.js';
import { isSecureProviderUrl, type ServerConfig } from './config.js';
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

/**
 * A verified SSO token that maps to no role: refused (403) on every route. It still names a
 * caller, so a mutation attempt with it is audited as denied under `subject` (with no role).
 */
export class RolelessToken extends ApiError {
  constructor(readonly subject: string, roleClaim: string) {
    super(403, `token carries no role in claim ${roleClaim}`);
  }
}

/** Highest role first: a subject holding several gets the strongest it was granted. */
const RANK: Role[] = ['it_admin', 'app_owner', 'auditor'];

/** A claim by name, or by dotted path when no claim has that exact name (Keycloak's realm_access.roles). */
function claimAt(payload: JWTPayload, name: string): unknown {
  if (name in payload) return payload[name];
  return name.split('.').reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), payload);
}

const DISCOVERY_TIMEOUT_MS = 5000;

/**
 * Errors that say the identity provider's keys could not be had (unreachable, timed out, a
 * broken JWKS), as opposed to a token that failed verification: those are 503, not 401.
 */
function isProviderUnavailable(err: unknown): boolean {
  if (err instanceof ProviderUnavailable) return true;
  if (!(err instanceof joseErrors.JOSEError)) return true;
  return err.code === 'ERR_JWKS_TIMEOUT' || err.code === 'ERR_JWKS_INVALID' || err.code === 'ERR_JOSE_GENERIC';
}
class ProviderUnavailable extends Error {}

export function rolesFromClaims(payload: JWTPayload, sso: NonNullable<ServerConfig['sso']>): Role | null {
  const raw = claimAt(payload, sso.role_claim);
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
      const res = await fetch(new URL('.well-known/openid-configuration', sso!.issuer.replace(/\/?$/, '/')), {
        signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
      }).catch((err: Error) => {
        throw new ProviderUnavailable(`discovery failed: ${err.name === 'TimeoutError' ? 'timed out' : ((err.cause as Error | undefined)?.message ?? err.message)}`);
      });
      if (!res.ok) throw new ProviderUnavailable(`discovery answered ${res.status}`);
      uri = ((await res.json().catch(() => ({}))) as { jwks_uri?: string }).jwks_uri;
      if (!uri) throw new ProviderUnavailable('discovery has no jwks_uri');
      if (!URL.canParse(uri) || !isSecureProviderUrl(new URL(uri))) throw new ProviderUnavailable('discovery names a jwks_uri that is not https');
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
      // Read before verifying, so that only a plausible token from our issuer costs an outbound
      // fetch of the provider's keys (or a 503 while it is down); anything else is 401 at once.
      let unverified: JWTPayload;
      try {
        const header = decodeProtectedHeader(credential);
        if (typeof header.alg !== 'string' || header.alg === 'none') throw new Error('unsigned');
        unverified = decodeJwt(credential);
      } catch {
        throw unauthorized('identity-provider token rejected: not a signed JWT');
      }
      if (unverified.iss !== sso.issuer) throw unauthorized('identity-provider token rejected: unexpected "iss" claim value');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(credential, await getJwks(), { issuer: sso.issuer, audience: sso.audience, requiredClaims: ['exp'] }));
      } catch (err) {
        if (isProviderUnavailable(err)) {
          const cause = (err as Error).cause as Error | undefined;
          const reason = `${(err as Error).message}${cause?.message ? `: ${cause.message}` : ''}`;
          throw new ApiError(503, `cannot verify identity-provider tokens right now (${reason})`, { headers: { 'Retry-After': '30' } });
        }
        throw unauthorized(`identity-provider token rejected: ${(err as Error).message}`);
      }
      const rawSubject = payload[sso.subject_claim];
      const subject = typeof rawSubject === 'string' ? rawSubject : typeof rawSubject === 'number' && Number.isFinite(rawSubject) ? String(rawSubject) : '';
      if (!subject.trim()) throw unauthorized(`identity-provider token rejected: no subject in claim ${sso.subject_claim}`);
      const role = rolesFromClaims(payload, sso);
      if (!role) throw new RolelessToken(subject, sso.role_claim);
      return { subject, role, kind: 'sso', expires_at: new Date(payload.exp! * 1000).toISOString() };
    }
    throw unauthorized('unknown credential');
  };
}
