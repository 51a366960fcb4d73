import type { AuditEntry } from '../../contract/index.js';

/** The audit list's query for the entries one request produced (usually one; a few, in case). */
export const requestAuditQuery = (requestId: string) => ({ request_id: requestId, limit: 10 });

/**
 * The request's entry in the answer to requestAuditQuery, matched on its request id again: an
 * appliance without the filter ignores it and sends its newest entries instead. Of several, the
 * one of `action` (what the request did) comes first.
 */
export function requestEntry(
  page: { data?: AuditEntry[] },
  requestId: string,
  action?: string | null,
): AuditEntry | null {
  const mine = (page.data ?? []).filter((e) => e.request_id === requestId);
  return mine.find((e) => e.action === action) ?? mine[0] ?? null;
}
