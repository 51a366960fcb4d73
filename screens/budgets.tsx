import type { BudgetValues, Budgets } from '../src/contract/index.js';
import { isAgentName } from '../src/contract/names.js';
import { defineScreen, type ActionContext, type FormField } from '../src/dashboard/kit/screen-api.js';
import { limitText, shortTime } from '../src/dashboard/kit/format.js';
import { confirmOverwrite, mergeValues } from '../src/dashboard/rules/merge.js';
import { auditHistoryAction } from '../src/dashboard/kit/audit-history.js';

type Field = keyof BudgetValues;
type Override = Partial<BudgetValues>;

const FIELDS: { name: Field; label: string; header: string }[] = [
  { name: 'tokens_per_run', label: 'Tokens / run', header: 'Tokens/run' },
  { name: 'tool_calls_per_run', label: 'Tool calls / run', header: 'Tool calls/run' },
  { name: 'seconds_per_run', label: 'Seconds / run', header: 'Seconds/run' },
  { name: 'tokens_per_day', label: 'Tokens / day', header: 'Tokens/day' },
];

/** One line of the screen: the defaults (agent null) or one agent's override. */
export interface BudgetRow {
  agent: string | null;
  values: Override;
  defaults: BudgetValues;
  updated_at?: string | null;
  updated_by?: string | null;
}

const INHERITED = '= default';

function rowsOf(data: unknown): BudgetRow[] {
  const doc = data as Partial<Budgets> | undefined;
  if (!doc || typeof doc !== 'object') return [];
  const defaults = (doc.defaults ?? {}) as BudgetValues;
  const agents = Object.entries(doc.agents ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return [
    { agent: null, values: defaults, defaults, updated_at: doc.updated_at, updated_by: doc.updated_by },
    ...agents.map(([agent, values]) => ({ agent, values: values ?? {}, defaults })),
  ];
}

function cell(row: BudgetRow, f: Field): string {
  const v = row.values[f];
  if (row.agent !== null && v === undefined) return INHERITED;
  return limitText(v);
}

/** A budget sorts by the value in force: an inherited one by the default's, unlimited above any limit. */
function budgetKey(row: BudgetRow, f: Field): number | null {
  const v = row.agent !== null && row.values[f] === undefined ? row.defaults[f] : row.values[f];
  return v === null ? Infinity : typeof v === 'number' ? v : null;
}

/** The document a PUT sends: only the contract's fields, from the latest answer. */
function writable(doc: Budgets): { defaults: BudgetValues; agents: Record<string, Override> } {
  const pick = (v: Override | undefined, all: boolean): Override =>
    Object.fromEntries(
      FIELDS.filter((f) => all || v?.[f.name] !== undefined).map((f) => [f.name, v?.[f.name] ?? null]),
    );
  return {
    defaults: pick(doc.defaults, true) as BudgetValues,
    agents: Object.fromEntries(Object.entries(doc.agents ?? {}).map(([a, v]) => [a, pick(v, false)])),
  };
}

/** An agent's own override: "constructor" or "toString" is an agent name, not Object.prototype's member. */
const overrideFor = (agents: Record<string, Override> | undefined, agent: string): Override | undefined =>
  agents && Object.hasOwn(agents, agent) ? agents[agent] : undefined;
const hasOverride = (agents: Record<string, Override> | undefined, agent: string) =>
  overrideFor(agents, agent) !== undefined;

/** Override fields: empty inherits the default, "unlimited" overrides with no limit. */
const OVERRIDE_INPUT = /^(?:|unlimited|\u221E|[0-9][0-9_,]*)$/i;
const overrideFields = (current: Override, defaults: BudgetValues): FormField[] =>
  FIELDS.map((f) => ({
    kind: 'text',
    name: f.name,
    label: f.label,
    initial: current[f.name] === undefined ? '' : current[f.name] === null ? 'unlimited' : String(current[f.name]),
    maxLength: 20,
    hint: `whole number, "unlimited", or empty = inherit (default ${limitText(defaults[f.name])})`,
    validate: (s) => {
      if (!OVERRIDE_INPUT.test(s)) return 'a whole number, "unlimited", or empty';
      const n = Number(s.replace(/[_,]/g, ''));
      return /^\d/.test(s) && !Number.isSafeInteger(n) ? 'too large' : null;
    },
  }));
function overrideOf(values: Record<string, unknown>): Override {
  const out: Override = {};
  for (const f of FIELDS) {
    const s = String(values[f.name] ?? '').trim();
    if (s === '') continue;
    out[f.name] = /^(unlimited|\u221E)$/i.test(s) ? null : Number(s.replace(/[_,]/g, ''));
  }
  return out;
}
const overrideText = (v: number | null | undefined) => (v === undefined ? INHERITED : limitText(v));
const valueText = (v: Override, f: Field, inherit: boolean) =>
  v[f] === undefined && inherit ? INHERITED : limitText(v[f]);
const describe = (v: Override, inherit: boolean) =>
  FIELDS.map((f) => `${f.label} ${valueText(v, f.name, inherit)}`).join(', ');
/** One line per value, for a result. */
const describeLines = (v: Override, inherit: boolean) =>
  FIELDS.map((f) => `  ${f.label.padEnd(18)}${valueText(v, f.name, inherit)}`);

/** The latest document (only what a PUT may send), and who changed it last. */
async function latest(ctx: ActionContext) {
  const got = await ctx.call('getBudgets');
  return {
    doc: writable(got),
    by: got.updated_by ? `${got.updated_by}${got.updated_at ? ` at ${got.updated_at}` : ''}` : null,
  };
}

/** Edits one agent's override on top of the latest document; empty fields inherit. */
async function editOverride(ctx: ActionContext, agent: string, isNew: boolean) {
  const { doc: before } = await latest(ctx);
  const current = overrideFor(before.agents, agent) ?? {};
  const v = await ctx.form({
    title: `${isNew && !hasOverride(before.agents, agent) ? 'New budget override' : 'Budget override'} for ${agent}`,
    message: [
      `Defaults: ${describe(before.defaults, false)}.`,
      'Empty = inherit the default; "unlimited" = no limit for this agent.',
    ],
    fields: overrideFields(current, before.defaults),
    submitLabel: 'save',
  });
  if (!v) return;
  const mine = overrideOf(v);
  // read-modify-write on what the appliance has now: only the fields changed here are written
  const { doc, by } = await latest(ctx);
  const had = hasOverride(doc.agents, agent);
  const m = mergeValues(FIELDS, current, mine, overrideFor(doc.agents, agent) ?? {});
  if (m.changed.length === 0) {
    const why =
      Object.keys(mine).length === 0 && !had
        ? `Every field inherits the defaults, so ${agent} needs no override.`
        : `You changed no value of ${agent}'s override; nothing was sent.`;
    return { title: 'Nothing saved', summary: [why] };
  }
  if (
    m.conflicts.length &&
    !(await confirmOverwrite(ctx, {
      what: `The override for ${agent}`,
      conflicts: m.conflicts,
      show: overrideText,
      by,
    }))
  ) {
    return {
      title: 'Nothing saved',
      tone: 'warn' as const,
      summary: [
        `Nothing was sent: the override for ${agent} keeps the other change. Open the form again to start from the latest values.`,
      ],
    };
  }
  if (m.same)
    return {
      title: 'Nothing saved',
      summary: [`The appliance already has these values for ${agent}; nothing was sent.`],
    };
  const override = m.merged as Override;
  if (Object.keys(override).length === 0) delete doc.agents[agent];
  else doc.agents[agent] = override;
  const saved = await ctx.call('setBudgets', { body: doc });
  ctx.refresh();
  const now = overrideFor(saved.agents, agent);
  return {
    title: 'Budgets saved',
    summary: now
      ? [`Override for ${agent}:`, ...describeLines(now, true)]
      : [`${agent} has no override now; it follows the defaults.`],
  };
}

export const budgetsScreen = defineScreen<BudgetRow>({
  name: 'budgets',
  title: 'Agent budgets',
  resources: () => [{ id: 'budgets', route: 'getBudgets' }],
  list: {
    rows: rowsOf,
    columns: [
      {
        header: 'Agent',
        value: (r) => r.agent ?? '(defaults)',
        tone: (r) => (r.agent === null ? 'accent' : undefined),
        grow: true,
        minWidth: 14,
        maxWidth: 40,
      },
      ...FIELDS.map((f) => ({
        header: f.header,
        value: (r: BudgetRow) => cell(r, f.name),
        tone: (r: BudgetRow) => (cell(r, f.name) === INHERITED ? ('muted' as const) : undefined),
        sort: (r: BudgetRow) => budgetKey(r, f.name),
        align: 'right' as const,
        minWidth: 12,
        maxWidth: 16,
      })),
    ],
    rowKey: (r) => (r.agent === null ? 'defaults' : `agent:${r.agent}`),
    empty: 'The appliance sent no budgets.',
    summary: (rows) => {
      const d = rows.find((r) => r.agent === null);
      const n = rows.length - (d ? 1 : 0);
      const changed = d?.updated_at
        ? `changed ${shortTime(d.updated_at)} UTC by ${d.updated_by ?? '?'}`
        : 'never changed (configured values)';
      return `${n} agent override${n === 1 ? '' : 's'} · ${changed} · "${INHERITED}" inherits the defaults row`;
    },
  },
  detail: (r) =>
    r.agent === null
      ? { defaults: r.values, updated_at: r.updated_at ?? null, updated_by: r.updated_by ?? null }
      : {
          agent: r.agent,
          override: r.values,
          effective: Object.fromEntries(
            FIELDS.map((f) => [f.name, r.values[f.name] === undefined ? r.defaults[f.name] : r.values[f.name]]),
          ),
        },
  actions: [
    {
      key: 'd',
      label: 'defaults',
      mutates: true,
      capability: 'agent.budgets.update',
      async run(ctx) {
        const { doc: before } = await latest(ctx);
        const v = await ctx.form({
          title: 'Default agent budgets',
          message: 'Every agent without an override for a value gets these. Empty means unlimited.',
          fields: FIELDS.map((f) => ({
            kind: 'limit',
            name: f.name,
            label: f.label,
            initial: before.defaults[f.name],
            hint: 'whole number, or empty for unlimited',
          })),
          submitLabel: 'save',
        });
        if (!v) return;
        const mine = Object.fromEntries(
          FIELDS.map((f) => [f.name, (v[f.name] as number | null) ?? null]),
        ) as BudgetValues;
        // only the values changed here are written onto what the appliance has now
        const { doc, by } = await latest(ctx);
        const m = mergeValues(FIELDS, before.defaults, mine, doc.defaults);
        if (m.changed.length === 0)
          return { title: 'Nothing saved', summary: ['You changed no default; nothing was sent.'] };
        if (
          m.conflicts.length &&
          !(await confirmOverwrite(ctx, { what: 'The default budgets', conflicts: m.conflicts, show: limitText, by }))
        ) {
          return {
            title: 'Nothing saved',
            tone: 'warn' as const,
            summary: [
              'Nothing was sent: the defaults keep the other change. Open the form again to start from the latest values.',
            ],
          };
        }
        if (m.same)
          return { title: 'Nothing saved', summary: ['The appliance already has these defaults; nothing was sent.'] };
        doc.defaults = { ...doc.defaults, ...m.merged } as BudgetValues;
        const saved = await ctx.call('setBudgets', { body: doc });
        ctx.refresh();
        return { title: 'Default budgets saved', summary: ['Defaults:', ...describeLines(saved.defaults, false)] };
      },
    },
    {
      intent: 'edit',
      label: 'edit',
      mutates: true,
      capability: 'agent.budgets.update',
      needsRow: true,
      unavailable: (r) => (r.agent === null ? 'not for the defaults row' : null),
      run: (ctx, r) => editOverride(ctx, r.agent!, false),
    },
    {
      intent: 'new',
      label: 'add',
      mutates: true,
      capability: 'agent.budgets.update',
      async run(ctx) {
        const { doc } = await latest(ctx);
        // Agents the journal has seen are offered; a journal the appliance does not have just means typing the name.
        const seen = await ctx
          .call('listJournal', { query: { limit: 500 } })
          .then((j) =>
            [
              ...new Set((j.data ?? []).map((e) => e.agent).filter((a) => typeof a === 'string' && isAgentName(a))),
            ].sort(),
          )
          .catch(() => [] as string[]);
        const picked = await ctx.pick<{ agent: string | null }>({
          title: 'Budget override for which agent?',
          message: 'Agents seen in the journal without an override, or type a name.',
          items: [
            { value: { agent: null }, label: 'Type an agent name…' },
            ...seen
              .filter((a) => !hasOverride(doc.agents, a))
              .map((a) => ({ value: { agent: a }, label: a, hint: 'seen in the journal' })),
          ],
        });
        if (!picked) return;
        let agent = picked.agent;
        if (agent === null) {
          const v = await ctx.form({
            title: 'New budget override',
            fields: [
              {
                kind: 'text',
                name: 'agent',
                label: 'Agent',
                required: true,
                maxLength: 100,
                hint: 'letters, digits, . _ - (as the journal names it)',
                validate: (s) => (isAgentName(s) ? null : 'letters, digits, . _ - ; starting with a letter or digit'),
              },
            ],
            submitLabel: 'next',
          });
          if (!v) return;
          agent = String(v.agent);
        }
        return editOverride(ctx, agent, true);
      },
    },
    {
      intent: 'remove',
      label: 'remove',
      mutates: true,
      capability: 'agent.budgets.update',
      needsRow: true,
      unavailable: (r) => (r.agent === null ? 'not for the defaults row' : null),
      async run(ctx, r) {
        const agent = r.agent!;
        const ok = await ctx.confirm({
          title: `Remove the budget override for ${agent}?`,
          message: [`${agent}: ${describe(r.values, true)}.`, 'After removal the agent gets the default budgets.'],
          confirmLabel: 'Remove',
          danger: true,
        });
        if (!ok) return;
        const { doc } = await latest(ctx);
        if (!hasOverride(doc.agents, agent))
          return {
            title: 'Nothing removed',
            summary: [`${agent} has no override any more (someone removed it meanwhile).`],
          };
        delete doc.agents[agent];
        await ctx.call('setBudgets', { body: doc });
        ctx.refresh();
        return { title: 'Override removed', summary: [`${agent} now follows the default budgets.`] };
      },
    },
    auditHistoryAction<BudgetRow>((r) => ({ type: 'budgets', search: r.agent })),
  ],
});
