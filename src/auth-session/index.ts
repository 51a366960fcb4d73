// Sign-in with the identity provider from a terminal: the device flow, the stored session and
// its renewal, and plain words for the appliance's 401s. Tokens never leave this module except
// as the return value of getAccessToken().
export {
  deviceLogin,
  DEFAULT_SCOPE,
  type DeviceLoginOptions,
  type DevicePrompt,
  type TokenSet,
} from './device-login.js';
export {
  login,
  logout,
  getAccessToken,
  currentSession,
  REFRESH_MARGIN_MS,
  type LoginOptions,
  type LogoutResult,
  type SessionInfo,
} from './session.js';
export { explainAuthFailure, type AuthFailureExplanation, type ProblemLike } from './explain.js';
export { renderQr, type QrOptions } from './qr.js';
export { defaultSessionFile } from './store.js';
export {
  AuthSessionError,
  DeviceLoginError,
  IdentityProviderUnavailableError,
  NotSignedInError,
  SessionExpiredError,
  SessionFileError,
  type LoginSettings,
} from './errors.js';
