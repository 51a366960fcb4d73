import * as oidc from 'openid-client';
import { DeviceLoginError } from './errors.js';
import { oauthErrorCode, providerConfig, providerError } from './provider.js';

const DEFAULT_SCOPE = 'openid profile offline_access';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.5: the wait when the provider names none, and the step added on slow_down. */
const DEFAULT_INTERVAL_S = 5;
const SLOW_DOWN_STEP_S = 5;

/** What the person must see to approve the sign-in on another device. */
export interface DevicePrompt {
  verificationUri: string;
  /** the same page with the code filled in, when the provider offers it (the one for a QR code) */
  verificationUriComplete?: string;
  userCode: string;
  expiresAt: Date;
}

export interface DeviceLoginOptions {
  issuer: string;
  clientId: string;
  /** default: openid profile offline_access (offline_access asks for a refresh token) */
  scope?: string;
  /** sent as `audience` (Auth0 style) */
  audience?: string;
  /** sent as `resource` (RFC 8707) */
  resource?: string;
  /** shows the prompt; polling starts once it returns */
  onPrompt: (prompt: DevicePrompt) => void | Promise<void>;
  /** called before each poll of the token endpoint, e.g. to show a spinner */
  onPoll?: () => void;
  /** aborting stops the sign-in with DeviceLoginError('cancelled') */
  signal?: AbortSignal;
  /** how to wait between polls (tests record the waits instead of sleeping) */
  wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  tokenType?: string;
  /** ms since the epoch, or null when the provider gave no lifetime */
  expiresAt: number | null;
  /** ms since the epoch when the tokens arrived */
  obtainedAt: number;
  scope?: string;
  /** subject and display name from the ID token, when one came */
  subject?: string;
  name?: string;
}

/**
 * The OAuth 2.0 Device Authorization Grant (RFC 8628): asks the provider for a code, shows it
 * through onPrompt, then polls the token endpoint at the announced interval (slower after each
 * slow_down) until the person approves, denies, or the code expires.
 */
export async function deviceLogin(opts: DeviceLoginOptions): Promise<TokenSet> {
  const config = await providerConfig(opts.issuer, opts.clientId);
  if (!config.serverMetadata().device_authorization_endpoint) {
    throw new DeviceLoginError(
      'refused',
      `the identity provider at ${opts.issuer} does not offer the device sign-in (no device_authorization_endpoint)`,
    );
  }
  const params: Record<string, string> = { scope: opts.scope ?? DEFAULT_SCOPE };
  if (opts.audience) params.audience = opts.audience;
  if (opts.resource) params.resource = opts.resource;
  let auth: oidc.DeviceAuthorizationResponse;
  try {
    auth = await oidc.initiateDeviceAuthorization(config, params);
  } catch (err) {
    throw providerError(err, 'the identity provider refused to start the device sign-in');
  }
  const deadline = Date.now() + auth.expires_in * 1000;
  await opts.onPrompt({
    verificationUri: auth.verification_uri,
    verificationUriComplete: auth.verification_uri_complete,
    userCode: auth.user_code,
    expiresAt: new Date(deadline),
  });

  const wait = opts.wait ?? sleep;
  let intervalS = auth.interval ?? DEFAULT_INTERVAL_S;
  for (;;) {
    try {
      await wait(intervalS * 1000, opts.signal);
    } catch {
      throw cancelled();
    }
    if (opts.signal?.aborted) throw cancelled();
    if (Date.now() >= deadline) throw expired();
    opts.onPoll?.();
    try {
      return toTokenSet(await oidc.genericGrantRequest(config, DEVICE_GRANT, { device_code: auth.device_code }));
    } catch (err) {
      switch (oauthErrorCode(err)) {
        case 'authorization_pending':
          continue;
        case 'slow_down':
          intervalS += SLOW_DOWN_STEP_S;
          continue;
        case 'expired_token':
          throw expired();
        case 'access_denied':
          throw new DeviceLoginError('denied', 'the sign-in was declined at the identity provider; nothing was stored');
        default:
          throw providerError(err, 'the device sign-in failed');
      }
    }
  }
}

const expired = () =>
  new DeviceLoginError(
    'expired',
    'the sign-in code expired before it was approved; run the sign-in again for a new code',
  );
const cancelled = () => new DeviceLoginError('cancelled', 'the sign-in was cancelled');

export function toTokenSet(res: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): TokenSet {
  const claims = res.id_token ? res.claims() : undefined;
  const name =
    claims &&
    [claims.name, claims.preferred_username, claims.email].find((v): v is string => typeof v === 'string' && v !== '');
  const now = Date.now();
  return {
    obtainedAt: now,
    accessToken: res.access_token,
    refreshToken: res.refresh_token,
    tokenType: res.token_type,
    expiresAt: typeof res.expires_in === 'number' ? now + res.expires_in * 1000 : null,
    scope: res.scope,
    subject: claims?.sub,
    name,
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
