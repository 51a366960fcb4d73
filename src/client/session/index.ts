// Sign-in with the identity provider from a terminal: the device flow, the stored session and
// its renewal, and plain words for the appliance's 401s. Tokens never leave this module except
// as the return value of getAccessToken().
export { deviceLogin, type DevicePrompt } from './device-login.js';
export { login, logout, getAccessToken, currentSession, type SessionInfo } from './session.js';
export { explainAuthFailure } from './explain.js';
export { renderQr } from './qr.js';
export { defaultSessionFile } from './store.js';
export {
  AuthSessionError,
  DeviceLoginError,
  IdentityProviderUnavailableError,
  NotSignedInError,
  SessionExpiredError,
  SessionFileError,
} from './errors.js';
