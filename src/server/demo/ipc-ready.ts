import type { Db } from '../db/sqlite-driver.js';
import { ROLES, type Role } from '../../contract/roles.js';
import { issueToken, revokeToken } from '../tokens.js';

export interface ReadyMessage {
  type: 'ready';
  /** the appliance's base URL (routes live under /v1/admin) */
  url: string;
  tokens: Record<Role, string>;
}

const demoTokenName = (role: Role) => `demo-${role.replace('_', '-')}`;

/**
 * Tells the parent process (over the IPC channel only: never argv, env or stdout) where the server
 * listens, with one fresh token per role. Tokens of an earlier run on this data directory are
 * revoked first, so only the current parent holds working ones.
 */
export function announceReady(db: Db, url: string): void {
  if (!process.connected) return;
  const tokens = {} as Record<Role, string>;
  for (const role of ROLES) {
    revokeToken(db, demoTokenName(role));
    tokens[role] = issueToken(db, role, demoTokenName(role)).token;
  }
  const message: ReadyMessage = { type: 'ready', url, tokens };
  // with a callback, a parent that just went away is no 'error' event; serve sees the disconnect
  process.send?.(message, () => {});
}
