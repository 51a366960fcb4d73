import { createHash, randomBytes } from 'node:crypto';
import type { Db } from './db/sqlite-driver.js';
import { recordAudit } from './audit.js';
import { newId, iso } from './ids.js';
import type { Role } from '../contract/index.js';

/** On-host admin tokens: `aat_` + 32 random bytes; only the SHA-256 is stored. */
export const TOKEN_PREFIX = 'aat_';
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** How long an admin token lives unless issued without expiry (ttl null): a forgotten one dies by itself. */
export const DEFAULT_TOKEN_TTL_MS = 90 * 86_400_000;

export interface TokenRow {
  id: string;
  name: string;
  role: Role;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/**
 * The operator who ran `token issue` or `token revoke` on the host (the OS user). Given, the
 * change is audited in its own transaction; the demo and tests issue tokens without one.
 */
export interface HostActor {
  subject: string;
}

/** `ttlMs` null: never expires. */
export function issueToken(
  db: Db,
  role: Role,
  name: string,
  ttlMs: number | null = DEFAULT_TOKEN_TTL_MS,
  by?: HostActor,
): { token: string; row: TokenRow } {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const row: TokenRow = {
    id: newId('tok'),
    name,
    role,
    created_at: iso(),
    expires_at: ttlMs === null ? null : iso(Date.now() + ttlMs),
    revoked_at: null,
  };
  db.transaction(() => {
    db.prepare(
      'INSERT INTO api_tokens (id, name, role, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(row.id, row.name, row.role, hashSecret(token), row.created_at, row.expires_at);
    if (by) auditHost(db, by, 'token.issue', 201, row);
  })();
  return { token, row };
}

export const listTokens = (db: Db): TokenRow[] =>
  db
    .prepare('SELECT id, name, role, created_at, expires_at, revoked_at FROM api_tokens ORDER BY created_at')
    .all() as TokenRow[];

/** Revokes by id or name; returns how many tokens it revoked. */
export function revokeToken(db: Db, idOrName: string, by?: HostActor): number {
  return db.transaction(() => {
    const now = iso();
    const rows = db
      .prepare(
        'UPDATE api_tokens SET revoked_at = ? WHERE (id = ? OR name = ?) AND revoked_at IS NULL RETURNING id, name, role, created_at, expires_at, revoked_at',
      )
      .all(now, idOrName, idOrName) as TokenRow[];
    if (by) for (const row of rows) auditHost(db, by, 'token.revoke', 200, row);
    return rows.length;
  })();
}

/**
 * A host action has no HTTP request behind it: role null (the OS user is no API principal),
 * source_ip null, a request id of its own, and the status the API would have answered.
 * The details name the token, never its secret or hash.
 */
function auditHost(db: Db, by: HostActor, action: string, status: number, row: TokenRow): void {
  recordAudit(db, {
    actor: { subject: by.subject, role: null },
    action,
    target: { type: 'api_token', id: row.id, name: row.name },
    outcome: 'success',
    status,
    request_id: newId('req'),
    source_ip: null,
    details: { name: row.name, role: row.role, expires_at: row.expires_at, via: 'host-cli' },
  });
}

/** Why a token of this appliance's form was refused: never issued, revoked, or past its expiry. */
export type TokenRefusal = 'unknown' | 'revoked' | 'expired';

/** The token's row when it may be used, else why not (for the audit of refused requests). */
export function lookupToken(db: Db, token: string): TokenRow | TokenRefusal {
  const row = db
    .prepare('SELECT id, name, role, created_at, expires_at, revoked_at FROM api_tokens WHERE token_hash = ?')
    .get(hashSecret(token)) as TokenRow | undefined;
  if (!row) return 'unknown';
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && Date.parse(row.expires_at) <= Date.now()) return 'expired';
  return row;
}
