import type { Model, RoutingEntry } from '../../contract/index.js';
import type { ActionContext } from '../kit/screen-api.js';

/** The workloads and models as the appliance has them now (not the last poll): a confirmation names what moves. */
export async function modelsAndRouting(ctx: ActionContext): Promise<{ models: Model[]; routing: RoutingEntry[] }> {
  const [models, routing] = await Promise.all([
    ctx.call('listModels', { query: { limit: 500 } }),
    ctx.call('listRouting', { query: { limit: 500 } }),
  ]);
  return { models: models.data ?? [], routing: routing.data ?? [] };
}

/** One workload whose effective model a change moves: "chat: llama-3.1-8b → mistral-7b". */
interface Moved {
  workload: string;
  from: string | null | undefined;
  to: string | null | undefined;
}

/** Shown before naming only a count: an 80x24 dialog keeps its buttons in view. */
const NAMED = 8;

/**
 * Activation and routing confirm alike: the change before → after, then every workload whose
 * effective model moves (or that none does), confirmed on the same button (the focus starts on Cancel).
 */
export function confirmModelChange(
  ctx: ActionContext,
  o: { title: string; change: string; moved: Moved[]; note?: string; confirmLabel: string },
): Promise<boolean> {
  const moved = o.moved.filter((m) => (m.from ?? null) !== (m.to ?? null));
  const named = moved.slice(0, NAMED).map((m) => `  ${m.workload}: ${m.from ?? 'none'} → ${m.to ?? 'none'}`);
  return ctx.confirm({
    title: o.title,
    message: [
      o.change,
      '',
      moved.length
        ? `Workloads whose effective model changes (${moved.length}):`
        : 'No workload changes its effective model.',
      ...named,
      ...(moved.length > NAMED ? [`  … and ${moved.length - NAMED} more (see the routing screen)`] : []),
      ...(o.note ? [o.note] : []),
    ],
    confirmLabel: o.confirmLabel,
  });
}
