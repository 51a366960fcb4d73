/** Models the appliance is missing though they are in use. */
import type { Model, RoutingEntry } from '../../contract/index.js';
import { NOW, type TriageLine } from './line.js';

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
