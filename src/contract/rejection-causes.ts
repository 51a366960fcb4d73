/**
 * Why the gateway refused a key's calls: the quota that was reached, a revoked key, an expired key,
 * a secret a rotation replaced (after its grace), a workload it does not have, or the key's money
 * budget (a hard budget reached, or a model without a price for a key that has a budget). Without zod, so that the usage screen can name them without building the gateway's
 * schemas at the dashboard's start (docs/performance.md).
 */
export const REJECTION_CAUSES = [
  'requests_per_minute',
  'tokens_per_minute',
  'tokens_per_day',
  'revoked',
  'unknown_workload',
  'expired',
  'rotated',
  'budget',
] as const;
export type RejectionCause = (typeof REJECTION_CAUSES)[number];
