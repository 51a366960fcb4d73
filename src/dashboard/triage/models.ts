/** Models the appliance is missing though they are in use, and models without a price serving traffic. */
import type { Model, RoutingEntry, Usage } from '../../contract/index.js';
import { sanitize } from '../../text/sanitize.js';
import { LAST_HOUR, NOW, plural, type TriageLine } from './line.js';

/** A model the appliance does not have, but which is active or which a workload is routed to. */
export function modelLines(models: Model[], routing: RoutingEntry[]): TriageLine[] {
  return models
    .filter((m) => m.state === 'missing')
    .map((m) => ({
      m,
      workloads: routing.filter((r) => r.model_id === m.id || r.effective_model_id === m.id).map((r) => r.workload),
    }))
    .filter(({ m, workloads }) => m.active || workloads.length > 0)
    .map(({ m, workloads }) => {
      const uses = [
        m.active ? 'it is the active model' : null,
        workloads.length ? `routed to by ${workloads.join(', ')}` : null,
      ].filter(Boolean);
      return {
        key: `model:${m.id}`,
        severity: 'crit',
        what: `Model ${m.name ?? m.id}`,
        reason: `missing from the appliance, but ${uses.join(' and ')}`,
        count: null,
        window: NOW,
        link: { screen: 'models', select: m.id },
      } satisfies TriageLine;
    });
}

/**
 * A model the appliance's pricing leaves out while a workload is routed to it and the last hour had
 * calls of unknown cost: those calls are counted as unpriced, never as free, so what the gateway
 * cost is understated until the model is priced (a watch item, not an outage). Nothing when the
 * appliance has no pricing at all (then no call has a cost).
 */
export function unpricedModelLines(
  models: Model[],
  routing: RoutingEntry[],
  lastHour: Usage | undefined,
): TriageLine[] {
  const unpricedCalls = (Array.isArray(lastHour?.data) ? lastHour.data : []).reduce(
    (n, u) => n + (typeof u?.unpriced_requests === 'number' ? u.unpriced_requests : 0),
    0,
  );
  if (!unpricedCalls) return [];
  return models
    .filter((m) => typeof m?.currency === 'string' && m.currency && m.price === null && m.state === 'present')
    .map((m) => ({ m, workloads: routing.filter((r) => r?.effective_model_id === m.id).map((r) => r.workload) }))
    .filter(({ workloads }) => workloads.length > 0)
    .map(({ m, workloads }) => ({
      key: `model-unpriced:${m.id}`,
      severity: 'warn',
      what: `Model ${sanitize(String(m.name ?? m.id), 60)}`,
      reason: `has no price but serves ${workloads.map((w) => sanitize(w, 40)).join(', ')}: ${plural(unpricedCalls, 'call')} in the last hour of unknown cost (not free); price it in the config's pricing`,
      count: unpricedCalls,
      window: LAST_HOUR,
      link: { screen: 'spend', extra: { range: 'day', by: 'model' }, select: m.id },
    }));
}
