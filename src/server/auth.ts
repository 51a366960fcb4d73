import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import type { Db } from './db/sqlite-driver.js';
import type { ServerConfig } from './config.js';
import { ApiError } from './errors.js';
import { isProviderUnavailable, ProviderUnavailable, providerKeys } from './identity/provider-keys.js';
import { lookupToken, TOKEN_PREFIX } from './tokens.js';
import type { Role } from '../contract/index.js';
import { isRole, strongestRole } from '../contract/roles.js';

export interface Principal {
  subject: string;
  role: Role;
  kind: 'token' | 'sso';
  expires_at: string | null;
}

/**
 * Why a request was refused as unauthenticated, for the audit of refusals (http/refusals.ts): no
 * credential, one not in the form of a bearer token or a signed JWT, one this appliance does not
 * know (or an identity-provider token that fails verification), one past its expiry, one revoked.
 * Never any part of the credential.
 */
export type RefusalReason = 'missing' | 'malformed' | 'unknown' | 'expired' | 'revoked';

/** A 401; its reason is for the audit only, the caller reads the same words as before. */
export class Unauthorized extends ApiError {
  constructor(
    readonly reason: RefusalReason,
    detail: string,
  ) {
    super(401, detail, { headers: { 'WWW-Authenticate': 'Bearer realm="appliance-admin"' } });
  }
}

/**
 * A verified SSO token that maps to no role: refused (403) on every route. It still names a
 * caller, so a mutation attempt with it is audited as denied under `subject` (with no role).
 */
export class RolelessToken extends ApiError {
  constructor(
    readonly subject: string,
    roleClaim: string,
  ) {
    super(403, `token carries no role in claim ${roleClaim}`);
  }
}

/** A claim by name, or by dotted path when no claim has that exact name (Keycloak's realm_access.roles). */
function claimAt(payload: JWTPayload, name: string): unknown {
  if (name in payload) return payload[name];
  return name
    .split('.')
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      payload,
    );
}

function rolesFromClaims(payload: JWTPayload, sso: NonNullable<ServerConfig['sso']>): Role | null {
  const raw = claimAt(payload, sso.role_claim);
  const values = (Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[\s,]+/) : []).filter(
    (v): v is string => typeof v === 'string',
  );
  const roles = new Set<Role>();
  for (const v of values) {
    const mapped = sso.role_map[v] ?? (isRole(v) ? v : undefined);
    if (mapped) roles.add(mapped);
  }
  // a subject holding several gets the strongest it was granted
  return strongestRole(roles);
}

export type Authenticator = (authorization: string | undefined) => Promise<Principal>;

export function createAuthenticator(db: Db, config: ServerConfig, log: Logger): Authenticator {
  const sso = config.sso;
  const keys = sso && providerKeys(sso, log);

  return async (authorization) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!m) throw new Unauthorized(authorization?.trim() ? 'malformed' : 'missing', 'missing bearer credential');
    const credential = m[1];
    if (credential.startsWith(TOKEN_PREFIX)) {
      const row = lookupToken(db, credential);
      // one answer for the three: a caller learns nothing about a token it does not hold
      if (typeof row === 'string') throw new Unauthorized(row, 'unknown, expired or revoked token');
      return { subject: row.name, role: row.role, kind: 'token', expires_at: row.expires_at };
    }
    if (sso && keys && credential.split('.').length === 3) {
      // Read before verifying, so that only a plausible token from our issuer costs an outbound
      // fetch of the provider's keys (or a 503 while it is down); anything else is 401 at once.
      let unverified: JWTPayload;
      try {
        const header = decodeProtectedHeader(credential);
        if (typeof header.alg !== 'string' || header.alg === 'none') throw new Error('unsigned');
        unverified = decodeJwt(credential);
      } catch {
        throw new Unauthorized('malformed', 'identity-provider token rejected: not a signed JWT');
      }
      if (unverified.iss !== sso.issuer)
        throw new Unauthorized('unknown', 'identity-provider token rejected: unexpected "iss" claim value');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(credential, keys, {
          issuer: sso.issuer,
          audience: sso.audience,
          requiredClaims: ['exp'],
        }));
      } catch (err) {
        if (isProviderUnavailable(err)) {
          // The cause can name internal addresses: it goes to the log (a failed fetch is logged
          // where it failed), never to a caller who may not even be signed in.
          if (!(err instanceof ProviderUnavailable)) log.warn({ err }, 'could not verify an identity-provider token');
          throw new ApiError(503, 'cannot verify identity-provider tokens right now; the cause is in the server log', {
            headers: { 'Retry-After': '30' },
          });
        }
        const expired = (err as { code?: unknown }).code === 'ERR_JWT_EXPIRED';
        throw new Unauthorized(
          expired ? 'expired' : 'unknown',
          `identity-provider token rejected: ${(err as Error).message}`,
        );
      }
      const rawSubject = payload[sso.subject_claim];
      const subject =
        typeof rawSubject === 'string'
          ? rawSubject
          : typeof rawSubject === 'number' && Number.isFinite(rawSubject)
            ? String(rawSubject)
            : '';
      if (!subject.trim())
        throw new Unauthorized('unknown', `identity-provider token rejected: no subject in claim ${sso.subject_claim}`);
      const role = rolesFromClaims(payload, sso);
      if (!role) throw new RolelessToken(subject, sso.role_claim);
      return { subject, role, kind: 'sso', expires_at: new Date(payload.exp! * 1000).toISOString() };
    }
    throw new Unauthorized('unknown', 'unknown credential');
  };
}
