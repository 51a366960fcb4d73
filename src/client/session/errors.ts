/** What `login` was given, kept in the session so a re-sign-in can ask the same provider again. */
export interface LoginSettings {
  issuer: string;
  clientId: string;
  scope?: string;
  audience?: string;
  resource?: string;
  applianceUrl?: string;
}

/** Every failure of this module: the message is plain words meant to be shown as is. */
export class AuthSessionError extends Error {
  override name = 'AuthSessionError';
}

export class NotSignedInError extends AuthSessionError {
  override name = 'NotSignedInError';
  constructor(file: string) {
    super(`you are not signed in (no session in ${file}); run: appliance-admin login --issuer URL --client-id ID`);
  }
}

/**
 * The stored sign-in can no longer be renewed (refresh token expired, revoked or refused). The
 * session file is kept: `settings` holds what a new device sign-in needs.
 */
export class SessionExpiredError extends AuthSessionError {
  override name = 'SessionExpiredError';
  constructor(
    readonly settings: LoginSettings,
    readonly reason: string,
  ) {
    super('your sign-in has expired; run appliance-admin login again');
  }
}

/** The session file is unsafe or unreadable; the message says how to fix it. */
export class SessionFileError extends AuthSessionError {
  override name = 'SessionFileError';
}

/** The identity provider could not be reached or answered with a server error; retrying later may work. */
export class IdentityProviderUnavailableError extends AuthSessionError {
  override name = 'IdentityProviderUnavailableError';
}

export type DeviceLoginFailure = 'expired' | 'denied' | 'cancelled' | 'refused';

/** The device sign-in ended without tokens. */
export class DeviceLoginError extends AuthSessionError {
  override name = 'DeviceLoginError';
  constructor(
    readonly kind: DeviceLoginFailure,
    message: string,
  ) {
    super(message);
  }
}
