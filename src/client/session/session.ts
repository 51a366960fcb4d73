import * as oidc from 'openid-client';
import { deviceLogin, toTokenSet, type DeviceLoginOptions } from './device-login.js';
import { IdentityProviderUnavailableError, NotSignedInError, SessionExpiredError } from './errors.js';
import { describe, settingsOf, type SessionFileOption, type SessionInfo } from './info.js';
import { oauthErrorCode, providerConfig, providerError } from './provider.js';
import {
  defaultSessionFile,
  readSession,
  removeSession,
  withSessionLock,
  writeSession,
  type StoredSession,
} from './store.js';

/**
 * Renew this long before the access token expires, so a request never leaves with a dying token;
 * for tokens that live less than twice this, renew at half their lifetime instead (else every
 * call would renew).
 */
export const REFRESH_MARGIN_MS = 60_000;
const REVOKE_TIMEOUT_MS = 5_000;

export { currentSession, type SessionFileOption, type SessionInfo } from './info.js';

export type LoginOptions = DeviceLoginOptions & SessionFileOption & { applianceUrl?: string };

/** Runs the device sign-in and stores the result; returns who signed in. */
export async function login(opts: LoginOptions): Promise<SessionInfo> {
  const file = opts.file ?? defaultSessionFile();
  const tokens = await deviceLogin(opts);
  const session: StoredSession = {
    version: 1,
    issuer: opts.issuer,
    client_id: opts.clientId,
    scope: opts.scope,
    audience: opts.audience,
    resource: opts.resource,
    appliance_url: opts.applianceUrl,
    access_token: tokens.accessToken,
    refresh_token: tokens.refreshToken,
    token_type: tokens.tokenType,
    expires_at: tokens.expiresAt,
    obtained_at: tokens.obtainedAt,
    subject: tokens.subject,
    name: tokens.name,
    signed_in_at: new Date().toISOString(),
  };
  await withSessionLock(file, async () => writeSession(file, session));
  return describe(session);
}

const inFlight = new Map<string, Promise<string>>();

/**
 * A valid access token from the stored session, renewed with the refresh token (and saved) when
 * it expires within `refreshMarginMs` (default: 60 s, or half the token's lifetime when that is
 * shorter). Concurrent callers, in this process or others, share one renewal.
 * Throws NotSignedInError, SessionExpiredError (sign in again), IdentityProviderUnavailableError
 * (the token has run out and the provider cannot be reached), SessionFileError.
 */
export async function getAccessToken(opts: SessionFileOption & { refreshMarginMs?: number } = {}): Promise<string> {
  const file = opts.file ?? defaultSessionFile();
  const margin = opts.refreshMarginMs;
  const session = readSession(file);
  if (!session) throw new NotSignedInError(file);
  if (isFresh(session, margin)) return session.access_token;
  let pending = inFlight.get(file);
  if (!pending) {
    pending = withSessionLock(file, () => renew(file, margin)).finally(() => inFlight.delete(file));
    inFlight.set(file, pending);
  }
  return pending;
}

function isFresh(s: StoredSession, margin: number | undefined): boolean {
  if (s.expires_at === null) return true;
  const lifetime = s.obtained_at === undefined ? Infinity : s.expires_at - s.obtained_at;
  return s.expires_at - Date.now() > (margin ?? Math.min(REFRESH_MARGIN_MS, lifetime / 2));
}
const isUsable = (s: StoredSession) => s.expires_at === null || s.expires_at - Date.now() > 5_000;

async function renew(file: string, margin: number | undefined): Promise<string> {
  // Read again under the lock: another process may have renewed it while we waited.
  const session = readSession(file);
  if (!session) throw new NotSignedInError(file);
  if (isFresh(session, margin)) return session.access_token;
  if (!session.refresh_token) {
    if (isUsable(session)) return session.access_token;
    throw new SessionExpiredError(
      settingsOf(session),
      'the identity provider gave no refresh token (was offline_access in the scope?)',
    );
  }
  let tokens;
  try {
    const config = await providerConfig(session.issuer, session.client_id);
    tokens = toTokenSet(
      await oidc.refreshTokenGrant(
        config,
        session.refresh_token,
        session.resource ? { resource: session.resource } : undefined,
      ),
    );
  } catch (err) {
    const code = oauthErrorCode(err);
    if (code) throw new SessionExpiredError(settingsOf(session), `the identity provider refused to renew it (${code})`);
    // The provider is unreachable: keep using the current token while it lasts.
    if (isUsable(session)) return session.access_token;
    const wrapped = providerError(err, 'your sign-in has run out and cannot be renewed right now');
    throw wrapped instanceof IdentityProviderUnavailableError
      ? wrapped
      : new IdentityProviderUnavailableError(wrapped.message, { cause: err });
  }
  writeSession(file, {
    ...session,
    access_token: tokens.accessToken,
    refresh_token: tokens.refreshToken ?? session.refresh_token,
    token_type: tokens.tokenType ?? session.token_type,
    expires_at: tokens.expiresAt,
    obtained_at: tokens.obtainedAt,
    subject: tokens.subject ?? session.subject,
    name: tokens.name ?? session.name,
  });
  return tokens.accessToken;
}

export interface LogoutResult {
  /** whether a session file was there to remove */
  removed: boolean;
  /** whether the provider confirmed revoking the refresh token */
  revoked: boolean;
  /** who was signed in, when the file could be read */
  session?: SessionInfo;
}

/**
 * Removes the stored session. Before that, when the provider has a revocation endpoint, revokes
 * the refresh token (best effort, a few seconds at most). A file with unsafe permissions is
 * removed without being used.
 */
export async function logout(opts: SessionFileOption = {}): Promise<LogoutResult> {
  const file = opts.file ?? defaultSessionFile();
  let session: StoredSession | null = null;
  try {
    session = readSession(file);
  } catch {
    // unsafe or damaged: nothing in it should be sent anywhere; removing it is the fix
  }
  const revoked = session?.refresh_token ? await revokeQuietly(session, session.refresh_token) : false;
  const removed = removeSession(file);
  return { removed, revoked, session: session ? describe(session) : undefined };
}

async function revokeQuietly(session: StoredSession, refreshToken: string): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const attempt = (async () => {
    const config = await providerConfig(session.issuer, session.client_id);
    if (!config.serverMetadata().revocation_endpoint) return false;
    await oidc.tokenRevocation(config, refreshToken, { token_type_hint: 'refresh_token' });
    return true;
  })();
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), REVOKE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([attempt.catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
