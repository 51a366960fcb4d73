import type { LoginSettings } from './errors.js';
import { defaultSessionFile, readSession, type StoredSession } from './store.js';

// Reading the stored sign-in needs neither openid-client nor the network: a client command
// that only wants to know whether there is one (and for which appliance) loads just this.

export interface SessionFileOption {
  /** default: $XDG_CONFIG_HOME/appliance-admin/session.json (or ~/.config/…) */
  file?: string;
}

/** What can be shown about the stored sign-in: never a token. */
export interface SessionInfo {
  issuer: string;
  clientId: string;
  subject?: string;
  name?: string;
  applianceUrl?: string;
  /** when the current access token expires (it is renewed before that) */
  expiresAt: Date | null;
  canRenew: boolean;
  signedInAt: string;
  settings: LoginSettings;
}

/** The stored sign-in, or null when there is none; throws SessionFileError for an unsafe file. */
export function currentSession(opts: SessionFileOption = {}): SessionInfo | null {
  const session = readSession(opts.file ?? defaultSessionFile());
  return session && describe(session);
}

export function settingsOf(s: StoredSession): LoginSettings {
  return {
    issuer: s.issuer,
    clientId: s.client_id,
    scope: s.scope,
    audience: s.audience,
    resource: s.resource,
    applianceUrl: s.appliance_url,
  };
}

export function describe(s: StoredSession): SessionInfo {
  return {
    issuer: s.issuer,
    clientId: s.client_id,
    subject: s.subject,
    name: s.name,
    applianceUrl: s.appliance_url,
    expiresAt: s.expires_at === null ? null : new Date(s.expires_at),
    canRenew: Boolean(s.refresh_token),
    signedInAt: s.signed_in_at,
    settings: settingsOf(s),
  };
}
