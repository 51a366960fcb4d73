import * as z from 'zod';
import type { AreaRoutes } from './route-meta.js';
import { Timestamp } from './common.js';

export const Accelerator = z.object({ name: z.string(), kind: z.string(), memory_bytes: z.number().int().nullable() });
/** How far the syslog copy of the audit trail is behind it. */
export const AuditForwardLag = z.object({
  /** the receiver's URL, as configured */
  target: z.string(),
  /** the last entry the receiver took, and the trail's newest */
  forwarded_seq: z.number().int(),
  head_seq: z.number().int(),
  /** entries written and not yet taken */
  behind: z.number().int(),
  oldest_unforwarded_at: Timestamp.nullable(),
  oldest_unforwarded_age_ms: z.number().int().nullable(),
  /** when the receiver last took a round of entries (this run) */
  last_taken_at: Timestamp.nullable(),
  /** while sending fails: why (one line, no secret) and since when */
  error: z.string().nullable(),
  failing_since: Timestamp.nullable(),
});
export const Deployment = z.object({
  status: z.enum(['healthy', 'degraded', 'installing']),
  version: z.string(),
  host: z.object({
    hostname: z.string(),
    os: z.string(),
    cpus: z.number().int(),
    memory_bytes: z.number().int(),
    disk_free_bytes: z.number().int().nullable(),
    accelerators: z.array(Accelerator),
  }),
  components: z.array(
    z.object({
      name: z.string(),
      status: z.enum(['healthy', 'degraded', 'down']),
      version: z.string().nullable(),
      message: z.string().nullable(),
    }),
  ),
  checked_at: Timestamp,
  /** the audit checkpoint signing key's fingerprint (docs/audit-chain.md); a real appliance may have none */
  audit_key_fingerprint: z.string().nullable().optional(),
  /** the copy of the audit trail off the host (docs/operations.md); null when forwarding is off */
  audit_forward: AuditForwardLag.nullable().optional(),
});
export type Deployment = z.infer<typeof Deployment>;

export const InstallPlan = z.object({
  steps: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      status: z.enum(['done', 'pending', 'blocked']),
      detail: z.string().nullable(),
    }),
  ),
  requirements: z.array(z.object({ name: z.string(), required: z.string(), actual: z.string(), ok: z.boolean() })),
});
export type InstallPlan = z.infer<typeof InstallPlan>;

export const Settings = z.object({
  sections: z.array(z.object({ name: z.string(), values: z.record(z.string(), z.unknown()) })),
  /** as in Deployment */
  audit_key_fingerprint: z.string().nullable().optional(),
});
export type Settings = z.infer<typeof Settings>;

/** The schemas of this area's routes (routes.ts joins them with route-meta.ts). */
export const deploymentRoutes = {
  deployment: { response: Deployment },
  installPlan: { response: InstallPlan },
  settings: { response: Settings },
} as const satisfies AreaRoutes<'deployment'>;
