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

/** A model in the audit list's few columns: the active model (null) as ↻active, else its id. */
const briefModel = (v: unknown): string => (typeof v === 'string' ? v : '↻active');

/**
 * What a change did, briefly, for the audit list's Target cell: "summarize: ↻active → mistral-7b"
 * (a routing change), "llama-3.1-8b → mistral-7b" (an activation: the Action column says what).
 * Null when the entry does not record it (a refused attempt, an older appliance).
 */
export function briefChangeOf(entry: {
  action?: string;
  target?: { id?: string | null; name?: string | null } | null;
  details?: Record<string, unknown> | null;
}): string | null {
  const d = entry.details;
  if (!d) return null;
  const modelOrNull = (v: unknown) => v === null || typeof v === 'string';
  if (entry.action === 'routing.update') {
    if (!('from' in d) || !('to' in d) || !modelOrNull(d.from) || !modelOrNull(d.to)) return null;
    const workload = entry.target?.id ?? entry.target?.name;
    return `${workload ? `${workload}: ` : ''}${briefModel(d.from)} → ${briefModel(d.to)}`;
  }
  if (entry.action === 'model.activate') {
    const to = entry.target?.id;
    if (!to || !('previous_model_id' in d) || !modelOrNull(d.previous_model_id)) return null;
    return `${typeof d.previous_model_id === 'string' ? d.previous_model_id : 'none'} → ${to}`;
  }
  return null;
}
