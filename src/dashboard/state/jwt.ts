import { ROLES, strongestRole, type Role } from '../../contract/roles.js';

export interface TokenClaims {
  subject: string | null;
  role: Role | null;
  expiresAt: string | null;
}

const ROLE_CLAIMS = ['role', 'roles', 'appliance_role', 'appliance_roles', 'groups'];

/**
 * Reads (does NOT verify) a JWT's claims, only to label the session when the appliance has no
 * GET /session. The server still decides every request; this only picks what the UI disables.
 */
export function claimsOf(token: string): TokenClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!payload || typeof payload !== 'object') return null;
  const values: string[] = [];
  const realm = (payload.realm_access as { roles?: unknown } | undefined)?.roles;
  for (const raw of [...ROLE_CLAIMS.map((c) => payload[c]), realm]) {
    if (typeof raw === 'string') values.push(...raw.split(/[\s,]+/));
    else if (Array.isArray(raw)) values.push(...raw.filter((v): v is string => typeof v === 'string'));
  }
  const held = new Set<Role>();
  for (const v of values) {
    const tail = v.toLowerCase().split(/[:/]/).pop() ?? '';
    const role = (ROLES as readonly string[]).find((r) => r === tail || r.replace('_', '-') === tail);
    if (role) held.add(role as Role);
  }
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  const exp = typeof payload.exp === 'number' ? new Date(payload.exp * 1000).toISOString() : null;
  return {
    subject: str(payload.preferred_username) ?? str(payload.email) ?? str(payload.sub),
    role: strongestRole(held),
    expiresAt: exp,
  };
}
