import type { RoutingEntry } from '../src/contract/index.js';
import { defineScreen } from '../src/dashboard/kit/screen-api.js';
import { shortTime } from '../src/dashboard/kit/format.js';
import { timeKey } from '../src/dashboard/kit/sort.js';
import { routingChange, routingChangeOf } from '../src/dashboard/kit/audit-change.js';
import { auditHistoryAction } from '../src/dashboard/kit/audit-history.js';
import { confirmModelChange, modelsAndRouting } from '../src/dashboard/rules/model-change.js';

const FOLLOWS = 'follows active';

const modelText = (e: RoutingEntry) => (e.model_id === null || e.model_id === undefined ? `↻ ${FOLLOWS}` : e.model_id);
const updated = (e: RoutingEntry) => (e.updated_at ? shortTime(e.updated_at) : 'never (config)');

/** What the user picked: a model id, or null to follow the active model. */
type Choice = { model_id: string | null };

export const routingScreen = defineScreen<RoutingEntry>({
  name: 'routing',
  title: 'Routing',
  resources: () => [{ id: 'routing', route: 'listRouting', query: { limit: 500 } }],
  list: {
    columns: [
      { header: 'Workload', value: (e) => e.workload, minWidth: 10, maxWidth: 24 },
      {
        header: 'Model',
        value: modelText,
        tone: (e) => (e.model_id == null ? 'info' : undefined),
        minWidth: 20,
        keep: true,
        maxWidth: 30,
      },
      {
        header: 'Effective model',
        value: (e) => e.effective_model_id ?? 'none',
        tone: (e) => (e.effective_model_id ? undefined : 'bad'),
        minWidth: 20,
        maxWidth: 30,
      },
      { header: 'Updated (UTC)', value: updated, sort: (e) => timeKey(e.updated_at), width: 16 },
      // who changed it: kept with the model, the date and the effective model give way before them
      { header: 'By', value: (e) => e.updated_by ?? '–', grow: true, minWidth: 8, maxWidth: 36, keep: true },
    ],
    rowKey: (e) => e.workload,
    empty: 'No workloads are configured on this appliance.',
    // Which model the followers get, said here: below 120 columns the Effective model column gives way
    // to who changed the route, and "↻ follows active" alone does not say what serves them.
    summary: (rows) => {
      const following = rows.filter((e) => e.model_id == null);
      const served = following[0]?.effective_model_id;
      const which = following.length ? (served ? ` (${served})` : ': no model is active, they are served by none') : '';
      return `${rows.length} workload${rows.length === 1 ? '' : 's'} · ${following.length} follow${following.length === 1 ? 's' : ''} the active model${which}`;
    },
  },
  actions: [
    {
      intent: 'edit',
      label: 'change model',
      hintShort: 'change',
      mutates: true,
      capability: 'routing.update',
      needsRow: true,
      async run(ctx, entry) {
        // Fetched now, not from the poll: only models present at this moment are offered.
        const { models, routing } = await modelsAndRouting(ctx);
        // the confirmation's "before" as the appliance has it now, not as the last poll saw it
        const now = routing.find((e) => e.workload === entry.workload) ?? entry;
        const active = models.find((m) => m.active);
        const present = models.filter((m) => m.state === 'present');
        const missing = models.length - present.length;
        const current = (id: string | null) => ((entry.model_id ?? null) === id ? '  (current)' : '');
        const choice = await ctx.pick<Choice>({
          title: `Route workload ${entry.workload}`,
          message: `Now: ${entry.model_id ?? FOLLOWS} (effective ${entry.effective_model_id ?? 'none'}). Only models present on the appliance are listed${missing ? `; ${missing} missing one${missing === 1 ? ' is' : 's are'} left out` : ''}.`,
          items: [
            {
              value: { model_id: null },
              label: `↻ Follow the active model`,
              hint: `${active ? `now ${active.id}` : 'no active model'}${current(null)}`,
            },
            ...present.map((m) => ({
              value: { model_id: m.id },
              label: m.name,
              hint: `${m.id}${m.active ? ' · active' : ''}${current(m.id)}`,
            })),
          ],
        });
        if (!choice) return;
        const ok = await confirmModelChange(ctx, {
          title: `Route ${entry.workload}?`,
          change: `${entry.workload}: ${routingChange(now.model_id, choice.model_id)}`,
          moved: [
            { workload: entry.workload, from: now.effective_model_id, to: choice.model_id ?? active?.id ?? null },
          ],
          confirmLabel: 'Route',
        });
        if (!ok) return;
        const after = await ctx.call('setRouting', {
          params: { workload: entry.workload },
          body: { model_id: choice.model_id },
        });
        ctx.refresh();
        // "from" as the appliance found it (someone may have changed it since the last poll), from the audit entry
        const audited = await ctx.audit('setRouting');
        const change = (audited && routingChangeOf(audited)) ?? routingChange(entry.model_id, after.model_id);
        return {
          title: 'Routing updated',
          summary: [`${after.workload}: ${change}.`, `Effective model: ${after.effective_model_id ?? 'none'}.`],
        };
      },
    },
    auditHistoryAction<RoutingEntry>((e) => ({ type: 'routing', search: e.workload })),
  ],
});
