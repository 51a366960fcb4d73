import { createHash, randomBytes } from 'node:crypto';
import type { Db } from './db/open.js';
import { newId, iso } from './ids.js';
import type { Role } from '../contract/index.js';

/** On-host admin tokens: `aat_` + 32 random bytes; only the SHA-256 is stored. */
export const TOKEN_PREFIX = 'aat_';
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export interface TokenRow { id: string; name: string; role: Role; created_at: string; expires_at: string | null; revoked_at: string | null }

export function issueToken(db: Db, role: Role, name: string, ttlMs?: number): { token: string; row: TokenRow } {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const row: TokenRow = {
    id: newId('tok'),
    name,
    role,
    created_at: iso(),
    expires_at: ttlMs ? iso(Date.now() + ttlMs) : null,
    revoked_at: null,
  };
  db.prepare('INSERT INTO api_tokens (id, name, role, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(row.id, row.name, row.role, hashSecret(token), row.created_at, row.expires_at);
  return { token, row };
}

export const listTokens = (db: Db): TokenRow[] =>
  db.prepare('SELECT id, name, role, created_at, expires_at, revoked_at FROM api_tokens ORDER BY created_at').all() as TokenRow[];

/** Revokes by id or name; returns how many tokens it revoked. */
export const revokeToken = (db: Db, idOrName: string): number =>
  db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE (id = ? OR name = ?) AND revoked_at IS NULL').run(iso(), idOrName, idOrName).changes;

export function findToken(db: Db, token: string): TokenRow | undefined {
  const row = db.prepare('SELECT id, name, role, created_at, expires_at, revoked_at FROM api_tokens WHERE token_hash = ?')
    .get(hashSecret(token)) as TokenRow | undefined;
  if (!row || row.revoked_at) return undefined;
  if (row.expires_at && Date.parse(row.expires_at) <= Date.now()) return undefined;
  return row;
}
