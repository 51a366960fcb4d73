import type { RejectionCause } from '../../contract/index.js';

/** The usage_minutes (and usage_rollup) column counting each cause; `rejected` is their sum. */
export const REJECTION_COLUMNS: Record<RejectionCause, string> = {
  requests_per_minute: 'rejected_rpm',
  tokens_per_minute: 'rejected_tpm',
  tokens_per_day: 'rejected_tpd',
  revoked: 'rejected_revoked',
  unknown_workload: 'rejected_workload',
  expired: 'rejected_expired',
  rotated: 'rejected_rotated',
  budget: 'rejected_budget',
};
