import * as z from 'zod';
import type { AreaRoutes } from './route-meta.js';
import { Role, Timestamp } from './common.js';

const Url = z
  .string()
  .max(2048)
  .pipe(z.url({ protocol: /^https?$/ }));
export const IdentityTestRequest = z.discriminatedUnion('provider', [
  z.strictObject({ provider: z.literal('oidc'), issuer_url: Url }),
  z.strictObject({ provider: z.literal('saml'), metadata_url: Url }),
]);
export type IdentityTestRequest = z.infer<typeof IdentityTestRequest>;

export const StepStatus = z.enum(['passed', 'failed', 'warning', 'skipped']);
export const IdentityTestResult = z.object({
  ok: z.boolean(),
  provider: z.enum(['oidc', 'saml']),
  target: z.string(),
  checked_at: Timestamp,
  duration_ms: z.number().int().min(0),
  steps: z.array(
    z.object({ id: z.string(), status: StepStatus, detail: z.string(), duration_ms: z.number().int().min(0) }),
  ),
});
export type IdentityTestResult = z.infer<typeof IdentityTestResult>;

export const Session = z.object({
  subject: z.string(),
  role: Role,
  expires_at: Timestamp.nullable(),
  /** actions this caller may take, e.g. gateway.key.revoke */
  capabilities: z.array(z.string()),
});
export type Session = z.infer<typeof Session>;

/** The schemas of this area's routes (routes.ts joins them with route-meta.ts). */
export const identityRoutes = {
  session: { response: Session },
  identityTest: { body: IdentityTestRequest, response: IdentityTestResult },
} as const satisfies AreaRoutes<'identity'>;
