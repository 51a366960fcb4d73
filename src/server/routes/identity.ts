import { badRequest } from '../errors.js';
import type { GroupFactory } from '../http/route-kit.js';
import { iso } from '../ids.js';

const hostOf = (raw: unknown): string | null => {
  try {
    return new URL(String(raw)).host || null;
  } catch {
    return null;
  }
};

/**
 * Route 20: an identity-provider connectivity pre-check. It only reads from the provider and
 * saves nothing (spec rule 3); its audit entry names the provider and host, never the URL.
 */
export const identityGroup: GroupFactory = () => ({
  handlers: {
    identityTest: {
      allow: 'mutating roles',
      audit: {
        action: 'identity.test',
        target: ({ body }) => {
          const b = (body ?? {}) as { issuer_url?: unknown; metadata_url?: unknown };
          return { type: 'identity_provider', id: hostOf(b.issuer_url ?? b.metadata_url) };
        },
      },
      async: true,
      async run({ body }, { config }) {
        const given = body.provider === 'oidc' ? body.issuer_url : body.metadata_url;
        const url = new URL(given);
        if (url.username || url.password) {
          throw badRequest('the URL must not carry credentials', [
            {
              name: body.provider === 'oidc' ? 'issuer_url' : 'metadata_url',
              reason: 'must not contain user:password@',
            },
          ]);
        }
        if (body.provider === 'oidc' && (url.search || url.hash || given.includes('#') || given.includes('?'))) {
          throw badRequest('an OIDC issuer URL has no query or fragment (OpenID Connect Discovery 1.0 §4)', [
            { name: 'issuer_url', reason: 'must not contain ? or #' },
          ]);
        }
        const started = Date.now();
        // loaded on the first test (their HTTP client with it), not at every start of the server
        const steps =
          body.provider === 'oidc'
            ? await (await import('../identity/oidc-check.js')).checkOidc(given, config.identity_test)
            : await (await import('../identity/saml-check.js')).checkSaml(given, config.identity_test);
        const ok = steps.ok;
        const failedStep = steps.steps.find((s) => s.status === 'failed')?.id ?? null;
        return {
          body: {
            ok,
            provider: body.provider,
            target: given,
            checked_at: iso(started),
            duration_ms: Date.now() - started,
            steps: steps.steps,
          },
          target: { type: 'identity_provider', id: url.host },
          details: { provider: body.provider, host: url.host, ok, failed_step: failedStep },
        };
      },
    },
  },
});
