import { createRemoteJWKSet, customFetch, errors as joseErrors, type JWTVerifyGetKey } from 'jose';
import type { Logger } from 'pino';
import { isSecureProviderUrl, type ServerConfig } from '../config.js';

const FETCH_TIMEOUT_MS = 5000;
/**
 * After a failed fetch the provider is left alone for 5 s, doubled per failure up to the 503's
 * Retry-After: long enough that a burst of requests arriving over a few seconds costs one fetch.
 */
export const FIRST_BACKOFF_MS = 5000;
const MAX_BACKOFF_MS = 30_000;

/** The provider's keys could not be had: discovery or the key set failed, or is waiting out a failure. */
export class ProviderUnavailable extends Error {}

/**
 * Errors that say the identity provider's keys could not be had (unreachable, timed out, a
 * broken JWKS), as opposed to a token that failed verification: those are 503, not 401.
 */
export function isProviderUnavailable(err: unknown): boolean {
  if (err instanceof ProviderUnavailable) return true;
  if (!(err instanceof joseErrors.JOSEError)) return true;
  return err.code === 'ERR_JWKS_TIMEOUT' || err.code === 'ERR_JWKS_INVALID' || err.code === 'ERR_JOSE_GENERIC';
}

const reasonOf = (err: unknown): string =>
  (err as Error).name === 'TimeoutError'
    ? 'timed out'
    : (((err as Error).cause as Error | undefined)?.message ?? (err as Error).message);

/**
 * The identity provider's signing keys, for verifying its tokens. However many requests wait on
 * them, one request at a time goes out (discovery here, the key set in jose's remote set), and
 * after a failure none goes out until a backoff has passed: a provider that is down costs one
 * fetch per backoff, not one per request. Each failure's cause, which may name internal
 * addresses, goes to the log and never to a caller.
 */
export function providerKeys(sso: NonNullable<ServerConfig['sso']>, log: Logger): JWTVerifyGetKey {
  let failures = 0;
  let retryAt = 0;

  /** One outbound fetch and the check of its answer; a failure starts or lengthens the backoff. */
  async function outbound<T>(what: string, fetchAndCheck: () => Promise<T>): Promise<T> {
    if (Date.now() < retryAt) throw new ProviderUnavailable(`${what}: waiting after a failure`);
    try {
      const value = await fetchAndCheck();
      failures = 0;
      return value;
    } catch (err) {
      failures++;
      const waitMs = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failures - 1));
      retryAt = Date.now() + waitMs;
      const reason = err instanceof ProviderUnavailable ? err.message : `${what} failed: ${reasonOf(err)}`;
      log.warn({ issuer: sso.issuer, reason, retry_in_ms: waitMs }, 'identity provider unavailable');
      throw err instanceof ProviderUnavailable ? err : new ProviderUnavailable(reason);
    }
  }

  const discoverJwksUri = () =>
    outbound('discovery', async () => {
      const res = await fetch(new URL('.well-known/openid-configuration', sso.issuer.replace(/\/?$/, '/')), {
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (!res.ok) throw new ProviderUnavailable(`discovery answered ${res.status}`);
      const uri = ((await res.json().catch(() => ({}))) as { jwks_uri?: unknown }).jwks_uri;
      if (typeof uri !== 'string' || !uri) throw new ProviderUnavailable('discovery has no jwks_uri');
      if (!URL.canParse(uri) || !isSecureProviderUrl(new URL(uri)))
        throw new ProviderUnavailable('discovery names a jwks_uri that is not https');
      return uri;
    });

  // jose fetches the key set once for all waiting callers; the fetch itself goes through `outbound`
  const remoteKeys = (uri: string) =>
    createRemoteJWKSet(new URL(uri), {
      timeoutDuration: FETCH_TIMEOUT_MS,
      [customFetch]: (url, init) =>
        outbound('key set fetch', async () => {
          const res = await fetch(url, init);
          if (res.status !== 200) throw new ProviderUnavailable(`key set fetch answered ${res.status}`);
          const body = (await res.json().catch(() => undefined)) as { keys?: unknown } | undefined;
          if (!Array.isArray(body?.keys)) throw new ProviderUnavailable('key set fetch answered no JSON key set');
          return Response.json(body);
        }),
    });

  /** The key set, found once (discovered unless configured) for every request waiting on it. */
  const findKeys = async () => remoteKeys(sso.jwks_uri ?? (await discoverJwksUri()));
  let keys: JWTVerifyGetKey | undefined;
  let finding: Promise<JWTVerifyGetKey> | undefined;
  return async (header, token) => {
    keys ??= await (finding ??= findKeys().finally(() => {
      finding = undefined;
    }));
    return keys(header, token);
  };
}
