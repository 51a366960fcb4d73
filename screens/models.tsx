import type { Model } from '../src/contract/index.js';
import { defineScreen } from '../src/dashboard/kit/screen-api.js';
import { bytes, priceText } from '../src/dashboard/kit/format.js';
import { markOf, toneOf } from '../src/dashboard/kit/theme.js';
import { auditHistoryAction } from '../src/dashboard/kit/audit-history.js';
import { confirmModelChange, modelsAndRouting } from '../src/dashboard/rules/model-change.js';

/** 8030000000 -> "8.0 B" (parameters, not bytes). */
function paramCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return String(n);
}

const stateBadge = (m: Model) => `${markOf(toneOf(m.state))} ${m.state ?? '?'}`;

/** Why a model cannot be activated now, or null. */
function whyNotActivate(m: Model): string | null {
  if (m.active) return 'it is already the active model';
  if (m.state !== 'present') return 'its files are not on the appliance (the service does not download models)';
  return null;
}

export const modelsScreen = defineScreen<Model>({
  name: 'models',
  title: 'Models',
  resources: () => [{ id: 'models', route: 'listModels', query: { limit: 500 } }],
  list: {
    columns: [
      { header: 'Name', value: (m) => m.name, grow: true, minWidth: 22, maxWidth: 40 },
      { header: 'State', value: stateBadge, tone: (m) => toneOf(m.state), width: 9, keep: true },
      {
        header: 'Active',
        value: (m) => (m.active ? '◆ ACTIVE' : ' '),
        tone: (m) => (m.active ? 'accent' : undefined),
        width: 8,
        keep: true,
      },
      {
        // per million input/output tokens; "unpriced" is a warning: its calls' cost is not known, not zero
        header: 'Price/1M in/out',
        value: (m) => priceText(m.price, m.currency),
        tone: (m) => (m.currency && !m.price ? 'warn' : undefined),
        sort: (m) => (m.price ? m.price.input_per_million + m.price.output_per_million : null),
        minWidth: 15,
        maxWidth: 20,
      },
      {
        header: 'Params',
        value: (m) => paramCount(m.parameters),
        sort: (m) => m.parameters ?? null,
        align: 'right',
        width: 8,
      },
      { header: 'Quant', value: (m) => m.quantization, maxWidth: 10 },
      {
        header: 'Size',
        value: (m) => bytes(m.size_bytes),
        sort: (m) => m.size_bytes ?? null,
        align: 'right',
        width: 9,
      },
      { header: 'Family', value: (m) => m.family, maxWidth: 12 },
      { header: 'ID', value: (m) => m.id, minWidth: 10, maxWidth: 28 },
    ],
    rowKey: (m) => m.id,
    empty:
      'No model is known to this appliance (models are copied onto the appliance; the service does not download them).',
    summary: (rows) => {
      const active = rows.find((m) => m.active);
      const missing = rows.filter((m) => m.state === 'missing').length;
      const unpriced = rows.filter((m) => m.currency && !m.price).length;
      const priced = rows.some((m) => m.currency);
      return [
        `${rows.length} model${rows.length === 1 ? '' : 's'}`,
        active ? `active: ${active.name}` : 'no active model',
        ...(missing ? [`${missing} missing on disk`] : []),
        ...(unpriced ? [`${unpriced} unpriced`] : []),
        ...(rows.length && !priced ? ['no pricing configured'] : []),
      ].join(' · ');
    },
  },
  actions: [
    {
      key: 'a',
      label: 'activate',
      mutates: true,
      capability: 'model.activate',
      needsRow: true,
      unavailable: whyNotActivate,
      async run(ctx, model) {
        const { models, routing } = await modelsAndRouting(ctx);
        const before = models.find((m) => m.active);
        const following = routing.filter((e) => e.model_id == null);
        const pinned = routing.length - following.length;
        const ok = await confirmModelChange(ctx, {
          title: `Activate ${model.name}?`,
          change: `Active model: ${before?.id ?? 'none'} → ${model.id}`,
          moved: following.map((e) => ({ workload: e.workload, from: e.effective_model_id, to: model.id })),
          note: pinned
            ? `${pinned} workload${pinned === 1 ? '' : 's'} routed to a specific model keep${pinned === 1 ? 's' : ''} it.`
            : undefined,
          confirmLabel: 'Activate',
        });
        if (!ok) return;
        const r = await ctx.call('activateModel', { body: { model_id: model.id } });
        ctx.refresh();
        return {
          title: 'Model activated',
          summary: [
            `${model.name} (${r.model_id}) is now the active model.`,
            `Previously active: ${r.previous_model_id ?? 'none'}.`,
          ],
        };
      },
    },
    auditHistoryAction<Model>((m) => ({ type: 'model', search: m.id })),
  ],
});
