/** How a change reads in words: on the routing screen's result, in its audit entry, and in the audit list. */

/** A workload's model in words: null (or absent) follows the active model. */
const routedTo = (modelId: string | null | undefined): string =>
  modelId === null || modelId === undefined ? 'follows the active model' : modelId;

/** "follows the active model → mistral-7b". */
export const routingChange = (from: string | null | undefined, to: string | null | undefined): string =>
  `${routedTo(from)} → ${routedTo(to)}`;

/**
 * The change a routing.update audit entry records (its details `from`, `to`), or null when the
 * entry says nothing of it (a failed or denied attempt, an appliance that does not record it).
 */
export function routingChangeOf(entry: { action?: string; details?: Record<string, unknown> | null }): string | null {
  const d = entry.details;
  if (entry.action !== 'routing.update' || !d || !('from' in d) || !('to' in d)) return null;
  const model = (v: unknown) => (typeof v === 'string' ? v : null);
  if ((d.from !== null && typeof d.from !== 'string') || (d.to !== null && typeof d.to !== 'string')) return null;
  return routingChange(model(d.from), model(d.to));
}
