import * as oidc from 'openid-client';
import { DeviceLoginError, IdentityProviderUnavailableError } from './errors.js';

const REQUEST_TIMEOUT_S = 15;

/** Plain http only to this machine: tests and local providers; anything else must be https. */
function isLoopbackHttp(url: URL): boolean {
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

const configs = new Map<string, Promise<oidc.Configuration>>();

/**
 * The provider's discovered configuration for a public client (no secret: the device flow runs
 * on machines that cannot keep one), cached per process.
 */
export function providerConfig(issuer: string, clientId: string): Promise<oidc.Configuration> {
  const key = `${issuer}\n${clientId}`;
  let pending = configs.get(key);
  if (!pending) {
    pending = discover(issuer, clientId);
    pending.catch(() => configs.delete(key));
    configs.set(key, pending);
  }
  return pending;
}

async function discover(issuer: string, clientId: string): Promise<oidc.Configuration> {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new DeviceLoginError('refused', `the issuer ${issuer} is not a URL`);
  }
  if (url.protocol !== 'https:' && !isLoopbackHttp(url)) {
    throw new DeviceLoginError(
      'refused',
      `the issuer must be an https URL (plain http only on loopback), got ${issuer}`,
    );
  }
  try {
    return await oidc.discovery(url, clientId, undefined, oidc.None(), {
      execute: isLoopbackHttp(url) ? [oidc.allowInsecureRequests] : [],
      timeout: REQUEST_TIMEOUT_S,
    });
  } catch (err) {
    throw providerError(err, `cannot read the identity provider's configuration at ${issuer}`);
  }
}

/** An OAuth error answer (`invalid_grant`, `access_denied`, …), or undefined for anything else. */
export function oauthErrorCode(err: unknown): string | undefined {
  return err instanceof oidc.ResponseBodyError ? err.error : undefined;
}

/** Wraps a failure talking to the provider in words; the cause stays attached. */
export function providerError(err: unknown, what: string): Error {
  if (err instanceof DeviceLoginError || err instanceof IdentityProviderUnavailableError) return err;
  if (err instanceof oidc.ResponseBodyError) {
    return new DeviceLoginError(
      'refused',
      `${what}: the identity provider answered ${err.error}${err.error_description ? ` (${err.error_description})` : ''}`,
    );
  }
  const answered = (err as { cause?: unknown })?.cause;
  if (answered instanceof Response && answered.status >= 400 && answered.status < 500) {
    return new DeviceLoginError('refused', `${what}: ${reasonOf(err)}`);
  }
  return new IdentityProviderUnavailableError(`${what}: ${reasonOf(err)}`, { cause: err });
}

function reasonOf(err: unknown): string {
  const e = err as Error & { cause?: Error & { code?: string } };
  if (e?.name === 'TimeoutError') return 'it did not answer in time';
  const cause = e?.cause;
  if (cause instanceof Response) return `it answered HTTP ${cause.status} (is the issuer URL right?)`;
  if (cause?.code)
    return `${cause.code}${cause.message && !cause.message.includes(cause.code) ? ` ${cause.message}` : ''}`;
  if (cause?.message) return `${e.message}: ${cause.message}`;
  return e?.message ?? String(err);
}
