import { Budgets, type SetBudgets } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import type { GroupFactory } from '../http/route-kit.js';
import { iso } from '../ids.js';
import { budgetUsage } from '../governance/budget-usage.js';

const BUDGETS_KEY = 'budgets';
const BUDGETS_TARGET = { type: 'budgets', id: null };
/** Keeps one audit entry small when a PUT rewrites many agents. */
const MAX_AUDITED_CHANGES = 50;

type BudgetsDoc = Budgets;
interface StateRow {
  value: string;
  updated_at: string | null;
  updated_by: string | null;
}

function initialBudgets(config: ServerConfig): BudgetsDoc {
  const b = config.budgets;
  return {
    defaults: {
      tokens_per_run: b.tokens_per_run ?? null,
      tool_calls_per_run: b.tool_calls_per_run ?? null,
      seconds_per_run: b.seconds_per_run ?? null,
      tokens_per_day: b.tokens_per_day ?? null,
    },
    agents: {},
    updated_at: null,
    updated_by: null,
  };
}

function readBudgets(db: Db, config: ServerConfig): BudgetsDoc {
  const row = db.prepare('SELECT value, updated_at, updated_by FROM app_state WHERE key = ?').get(BUDGETS_KEY) as
    StateRow | undefined;
  if (!row) return initialBudgets(config);
  // Stored by this server after validation; parse again so a hand-edited row cannot break the contract.
  let stored: unknown;
  try {
    stored = JSON.parse(row.value);
  } catch {
    return initialBudgets(config);
  }
  const parsed = Budgets.safeParse({ ...(stored as object), updated_at: row.updated_at, updated_by: row.updated_by });
  return parsed.success ? parsed.data : initialBudgets(config);
}

/** Flattens to `defaults.tokens_per_run`, `agents.<name>.<field>`: an absent override has no key. */
function flatten(doc: SetBudgets): Map<string, number | null> {
  const out = new Map<string, number | null>();
  for (const [k, v] of Object.entries(doc.defaults)) out.set(`defaults.${k}`, v);
  for (const [agent, values] of Object.entries(doc.agents)) {
    for (const [k, v] of Object.entries(values)) if (v !== undefined) out.set(`agents.${agent}.${k}`, v);
  }
  return out;
}

/** Which budget values changed; `from`/`to` are left out where an override was absent. */
function changes(before: SetBudgets, after: SetBudgets) {
  const a = flatten(before);
  const b = flatten(after);
  const out: { field: string; from?: number | null; to?: number | null }[] = [];
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(field) === b.get(field) && a.has(field) === b.has(field)) continue;
    out.push({ field, ...(a.has(field) ? { from: a.get(field) } : {}), ...(b.has(field) ? { to: b.get(field) } : {}) });
  }
  return out;
}

export const budgetsGroup: GroupFactory = ({ db, config }) => ({
  handlers: {
    getBudgets: { allow: 'any role', audit: null, run: () => ({ body: readBudgets(db, config) }) },
    budgetUsage: {
      allow: 'any role',
      audit: null,
      run: () => ({ body: budgetUsage(db, readBudgets(db, config), Date.now()) }),
    },

    setBudgets: {
      allow: 'mutating roles',
      audit: { action: 'agent.budgets.update', target: () => BUDGETS_TARGET },
      run: ({ body }, { principal }) => {
        const before = readBudgets(db, config);
        const updated_at = iso();
        db.prepare(
          `INSERT INTO app_state (key, value, updated_at, updated_by) VALUES (?, ?, ?, ?)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
        ).run(
          BUDGETS_KEY,
          JSON.stringify({ defaults: body.defaults, agents: body.agents }),
          updated_at,
          principal.subject,
        );
        const changed = changes(before, body);
        return {
          body: { defaults: body.defaults, agents: body.agents, updated_at, updated_by: principal.subject },
          target: BUDGETS_TARGET,
          details: {
            changes: changed.slice(0, MAX_AUDITED_CHANGES),
            ...(changed.length > MAX_AUDITED_CHANGES ? { more_changes: changed.length - MAX_AUDITED_CHANGES } : {}),
          },
        };
      },
    },
  },
});
