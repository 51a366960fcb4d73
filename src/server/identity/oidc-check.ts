import { importJWK, type JWK } from 'jose';
import {
  checkTarget,
  fetchChecked,
  guardedGet,
  type CheckedTarget,
  type FetchedBody,
  type OutboundPolicy,
} from './outbound.js';
import { failed, passed, StepRunner, warning, type StepOutcome } from './steps.js';

/** OpenID Connect Discovery 1.0 §3: the metadata every provider must publish. */
const REQUIRED_STRINGS = ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const;
const REQUIRED_LISTS = [
  'response_types_supported',
  'subject_types_supported',
  'id_token_signing_alg_values_supported',
] as const;

const isJson = (contentType: string) => /^application\/([\w.-]+\+)?json\b/i.test(contentType);
const show = (s: unknown) => JSON.stringify(String(s)).slice(0, 300);

function parseJsonObject(fetched: FetchedBody, what: string): { value: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(fetched.body.toString('utf8'));
  } catch {
    return { error: `${what} is not JSON (content-type ${fetched.contentType || 'missing'})` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { error: `${what} is not a JSON object` };
  return { value: value as Record<string, unknown> };
}

/** The discovery URL of OIDC Discovery §4: the issuer without its trailing slash, plus the well-known path. */
const discoveryUrlOf = (issuer: string) => new URL(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);

function checkDiscovery(doc: Record<string, unknown>, contentType: string, size: number): StepOutcome {
  const missing = [
    ...REQUIRED_STRINGS.filter((k) => typeof doc[k] !== 'string' || doc[k] === ''),
    ...REQUIRED_LISTS.filter((k) => !Array.isArray(doc[k]) || (doc[k] as unknown[]).length === 0),
  ];
  if (missing.length)
    return failed(
      `the discovery document lacks required field${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (OpenID Connect Discovery 1.0 §3)`,
    );
  const summary = `discovery document with all required fields (${size} bytes; signing algorithms ${(doc.id_token_signing_alg_values_supported as unknown[]).join(', ')})`;
  if (!isJson(contentType))
    return warning(`${summary}, but served as ${contentType || 'no content-type'} instead of application/json`);
  return passed(summary);
}

function checkIssuer(given: string, announced: string): StepOutcome {
  if (announced === given) return passed(`the provider's issuer equals ${show(given)}`);
  if (announced.replace(/\/$/, '') === given.replace(/\/$/, '')) {
    return failed(
      `the provider's issuer is ${show(announced)}, which differs from the URL given (${show(given)}) by a trailing slash; tokens carry the issuer exactly, so use ${show(announced)}`,
    );
  }
  return failed(
    `the provider announces issuer ${show(announced)}, not the URL given (${show(given)}); OIDC requires them to be identical`,
  );
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];
const DEFAULT_ALG: Record<string, string> = {
  RSA: 'RS256',
  'EC:P-256': 'ES256',
  'EC:P-384': 'ES384',
  'EC:P-521': 'ES512',
  'OKP:Ed25519': 'EdDSA',
};

async function checkJwks(jwks: Record<string, unknown>, contentType: string): Promise<StepOutcome> {
  const keys = jwks.keys;
  if (!Array.isArray(keys)) return failed('the JWKS has no "keys" array');
  if (keys.length === 0) return failed('the JWKS has no keys');
  const usable: string[] = [];
  const problems: string[] = [];
  for (const [i, raw] of keys.entries()) {
    const jwk = (raw && typeof raw === 'object' ? raw : {}) as JWK;
    const name = `key ${jwk.kid ? show(jwk.kid) : `#${i + 1}`}`;
    if (PRIVATE_MEMBERS.some((m) => m in jwk))
      return failed(`${name} publishes private key material; a JWKS must hold public keys only`);
    const alg = jwk.alg ?? DEFAULT_ALG[jwk.crv ? `${jwk.kty}:${jwk.crv}` : String(jwk.kty)];
    if (!alg) {
      problems.push(`${name}: unsupported key type ${show(jwk.kty)}`);
      continue;
    }
    try {
      await importJWK(jwk, alg);
    } catch (err) {
      problems.push(`${name}: ${(err as Error).message}`);
      continue;
    }
    if (jwk.use === undefined || jwk.use === 'sig') usable.push(`${name} ${alg}`);
  }
  if (usable.length === 0) {
    return failed(
      `the JWKS has no usable signing key${problems.length ? ` (${problems.join('; ')})` : ' (every key is for encryption)'}`,
    );
  }
  const summary = `${keys.length} key${keys.length > 1 ? 's' : ''}, ${usable.length} usable for signatures: ${usable.join(', ')}`;
  if (problems.length) return warning(`${summary}; could not parse ${problems.join('; ')}`);
  if (!isJson(contentType))
    return warning(`${summary}; served as ${contentType || 'no content-type'} instead of application/json`);
  return passed(summary);
}

/** OIDC pre-check: resolve, discovery, issuer-match, jwks (each later step skipped once one fails). */
export async function checkOidc(issuerUrl: string, policy: OutboundPolicy): Promise<StepRunner> {
  const steps = new StepRunner();
  const discoveryUrl = discoveryUrlOf(issuerUrl);
  const budget = AbortSignal.timeout(policy.timeout_ms);
  let target: CheckedTarget | undefined;
  let doc: Record<string, unknown> = {};

  await steps.run('resolve', async () => {
    const r = await checkTarget(discoveryUrl, policy, budget);
    if (!r.ok) return failed(r.detail);
    target = r.value;
    return passed(r.detail);
  });
  await steps.run('discovery', async () => {
    const r = await fetchChecked(target!, policy, budget, 'application/json');
    if (!r.ok) return failed(`GET ${discoveryUrl.pathname}: ${r.detail}`);
    const parsed = parseJsonObject(r.value, 'the discovery document');
    if ('error' in parsed) return failed(parsed.error);
    doc = parsed.value;
    return checkDiscovery(doc, r.value.contentType, r.value.body.length);
  });
  await steps.run('issuer-match', () => checkIssuer(issuerUrl, String(doc.issuer)));
  await steps.run('jwks', async () => {
    let jwksUrl: URL;
    try {
      jwksUrl = new URL(String(doc.jwks_uri));
    } catch {
      return failed(`jwks_uri ${show(doc.jwks_uri)} is not a URL`);
    }
    const r = await guardedGet(jwksUrl, policy, 'application/jwk-set+json, application/json');
    if (!r.ok) return failed(`jwks_uri ${jwksUrl.host}: ${r.detail}`);
    const parsed = parseJsonObject(r.value, 'the JWKS');
    if ('error' in parsed) return failed(parsed.error);
    return checkJwks(parsed.value, r.value.contentType);
  });
  return steps;
}
