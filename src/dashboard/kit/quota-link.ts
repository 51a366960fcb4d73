/**
 * A link to a key that says which of its quotas it is about (an overview line: rejected by the
 * tokens/day quota, near it): the keys screen keeps it in its state's extra, and the quota form
 * opened on that key starts on that field.
 */
const QUOTAS = ['requests_per_minute', 'tokens_per_minute', 'tokens_per_day'] as const;
export type QuotaName = (typeof QUOTAS)[number];

export const isQuotaName = (v: unknown): v is QuotaName => QUOTAS.includes(v as QuotaName);

/** The link's extra for key `keyId` and the quota `cause` (nothing when the cause is not a quota). */
export const quotaLinkExtra = (
  keyId: string,
  cause: string | undefined,
): { quotaFor?: { key: string; cause: QuotaName } } => (isQuotaName(cause) ? { quotaFor: { key: keyId, cause } } : {});

/** The quota a link opened the screen for on key `keyId`, if any. */
export function linkedQuota(extra: Record<string, unknown>, keyId: string): QuotaName | undefined {
  const q = extra.quotaFor as { key?: unknown; cause?: unknown } | undefined;
  return q?.key === keyId && isQuotaName(q.cause) ? q.cause : undefined;
}
