import * as z from 'zod';
import type { AreaRoutes } from './route-meta.js';
import { Timestamp } from './common.js';

export const Accelerator = z.object({ name: z.string(), kind: z.string(), memory_bytes: z.number().int().nullable() });
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
