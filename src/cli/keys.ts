import { parseArgs } from 'node:util';
import { MAX_FILTER_DAYS, type GatewayKey } from '../contract/index.js';
import { MAX_GRACE_SECONDS } from '../contract/key-rotation.js';
import type { ApiClient } from '../client/api-client.js';
import { UsageError } from '../config/usage-error.js';
import { ago, shortTime } from '../dashboard/kit/format.js';
import { fit, widthOf } from '../dashboard/kit/text.js';
import { expiryText, inGrace, UNUSED_DAYS } from '../dashboard/kit/key-lifecycle.js';
import {
  budgetText,
  fullestBudget,
  isNearBudget,
  nearBudgetText,
  parseBudgetAmount,
  spendCell,
  spentText,
} from '../dashboard/kit/key-budget.js';
import { durationMs } from '../text/duration.js';
import { parseExpiryInput } from '../text/expiry-input.js';
import { parseTimeInput } from '../text/time-input.js';
import { sanitize } from '../text/sanitize.js';
import { clientFor, reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, resolveConnection } from './connection.js';
import { printErr, printOut } from './print.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

export const KEYS_USAGE = helpText(commandAt(['keys']));

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  grace: { type: 'string' },
  at: { type: 'string' },
  in: { type: 'string' },
  never: { type: 'boolean', default: false },
  days: { type: 'string' },
  'per-day': { type: 'string' },
  'per-month': { type: 'string' },
  'warn-percent': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** `appliance-admin keys rotate|expire|unused|budget|near-budget`. */
export async function keysCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  if (values.help) {
    console.log(KEYS_USAGE);
    return 0;
  }
  const [sub, ...rest] = positionals;
  // the command line is checked whole before anything is sent
  const run = plan(sub, rest, values);
  const connection = resolveConnection(values, env, KEYS_USAGE);
  const client = clientFor(connection);
  try {
    return await run(client);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    return reportClientError(err, `keys ${sub}`, connection.credential);
  } finally {
    await client.close();
  }
}

function plan(sub: string | undefined, rest: string[], values: Values): (client: ApiClient) => Promise<number> {
  const only = (allowed: (keyof Values)[]) => {
    const given = (['grace', 'at', 'in', 'days', 'per-day', 'per-month', 'warn-percent'] as const).filter(
      (k) => values[k] !== undefined,
    );
    if (values.never) given.push('never' as never);
    if (values.json) given.push('json' as never);
    const stray = given.filter((k) => !allowed.includes(k));
    if (stray.length) throw new UsageError(`keys ${sub} takes no --${stray[0]}\n${KEYS_USAGE}`);
  };
  const oneKey = () => {
    if (rest.length !== 1) throw new UsageError(`keys ${sub} takes one KEY (an id or a name)\n${KEYS_USAGE}`);
    return rest[0];
  };
  switch (sub) {
    case 'rotate': {
      only(['grace']);
      const key = oneKey();
      const grace = graceSeconds(values.grace);
      return (client) => rotate(client, key, grace);
    }
    case 'expire': {
      only(['at', 'in', 'never']);
      const key = oneKey();
      const expiresAt = expiryOf(values);
      return (client) => expire(client, key, expiresAt);
    }
    case 'unused': {
      only(['days', 'json']);
      if (rest.length) throw new UsageError(`keys unused takes no KEY\n${KEYS_USAGE}`);
      const days = values.days === undefined ? UNUSED_DAYS : Number(values.days);
      if (!/^\d{1,4}$/.test(values.days ?? '0') || days < 1 || days > MAX_FILTER_DAYS)
        throw new UsageError(
          `--days must be a whole number of days from 1 to ${MAX_FILTER_DAYS}, got ${sanitize(String(values.days), 40)}`,
        );
      return (client) => unused(client, days, values.json === true);
    }
    case 'budget': {
      only(['per-day', 'per-month', 'warn-percent']);
      const key = oneKey();
      const change = budgetChangeOf(values);
      return (client) => setBudget(client, key, change);
    }
    case 'near-budget': {
      only(['json']);
      if (rest.length) throw new UsageError(`keys near-budget takes no KEY\n${KEYS_USAGE}`);
      return (client) => nearBudget(client, values.json === true);
    }
    default:
      throw new UsageError(
        sub === undefined
          ? KEYS_USAGE
          : `unknown keys command "${sanitize(sub, 40)}": rotate, expire, unused, budget or near-budget`,
      );
  }
}

/** --grace as whole seconds: a bare number is seconds (0 ends the old secret at once). */
function graceSeconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = durationMs(text, 's');
  if (ms === null || ms % 1000 !== 0 || ms / 1000 > MAX_GRACE_SECONDS)
    throw new UsageError(
      `--grace must be a length of whole seconds up to 30d (0, 90s, 30m, 12h, 7d), got ${sanitize(text, 40)}`,
    );
  return ms / 1000;
}

function expiryOf(values: Values): string | null {
  const given = [values.at !== undefined, values.in !== undefined, values.never === true].filter(Boolean).length;
  if (given !== 1) throw new UsageError(`keys expire takes one of --at TIME, --in LENGTH, --never\n${KEYS_USAGE}`);
  if (values.never) return null;
  if (values.in !== undefined) {
    const ms = durationMs(values.in);
    if (ms === null || ms <= 0)
      throw new UsageError(`--in must be a length of time (30d, 12h, 2w), got ${sanitize(values.in, 40)}`);
    return new Date(Date.now() + ms).toISOString().replace(/\.\d+Z$/, 'Z');
  }
  // an absolute time only: "30d" after --at would read as 30 days ago
  if (parseTimeInput(values.at!) === null || durationMs(values.at!) !== null)
    throw new UsageError(`--at must be an RFC 3339 time or a date (2026-12-31), got ${sanitize(values.at!, 60)}`);
  const r = parseExpiryInput(values.at!);
  if (!r.ok) throw new UsageError(`--at ${sanitize(values.at!, 60)}: ${r.error}`);
  return r.expires_at;
}

/** What `keys budget` changes: an amount (null: clear), or undefined to keep the key's own. */
interface BudgetChange {
  per_day?: number | null;
  per_month?: number | null;
  warn_percent?: number;
}

function budgetChangeOf(values: Values): BudgetChange {
  const change: BudgetChange = {};
  for (const [option, field] of [
    ['per-day', 'per_day'],
    ['per-month', 'per_month'],
  ] as const) {
    const text = values[option];
    if (text === undefined) continue;
    const r = parseBudgetAmount(text);
    if (!r.ok) throw new UsageError(`--${option} ${sanitize(text, 40)}: ${r.error}`);
    change[field] = r.amount;
  }
  if (values['warn-percent'] !== undefined) {
    const p = values['warn-percent'];
    if (!/^\d{1,3}$/.test(p) || Number(p) < 1 || Number(p) > 100)
      throw new UsageError(`--warn-percent must be a whole number from 1 to 100, got ${sanitize(p, 40)}`);
    change.warn_percent = Number(p);
  }
  if (!Object.keys(change).length)
    throw new UsageError(`keys budget takes --per-day, --per-month or --warn-percent\n${KEYS_USAGE}`);
  return change;
}

/**
 * The active keys page by page, each page handed to `take` as it comes: an appliance may hold a
 * million keys, and only what `take` keeps stays in memory.
 */
async function eachActiveKeyPage(
  client: ApiClient,
  take: (keys: GatewayKey[]) => void,
  filter: Record<string, string> = {},
): Promise<void> {
  for (let after: string | undefined; ;) {
    const page = (
      await client.call('listKeys', {
        query: { ...filter, status: 'active', limit: 500, ...(after ? { after } : {}) },
      })
    ).data;
    take(page.data ?? []);
    if (!page.has_more || !page.next_cursor || page.next_cursor === after) return;
    after = page.next_cursor;
  }
}

/**
 * A key by its id, or by the name of the one active key called that (ASCII letter case aside, as the
 * appliance compares names): each asked of the appliance's index, never by reading every key.
 */
async function findKey(client: ApiClient, ref: string): Promise<GatewayKey> {
  if (ref.length <= 100) {
    const byId = (await client.call('listKeys', { query: { id: ref, limit: 1 } })).data.data ?? [];
    if (byId[0]?.id === ref) return byId[0];
  }
  if (ref.length <= 64) {
    // in name order the exact name comes before the longer ones it begins
    const named = (
      (await client.call('listKeys', { query: { name: ref, status: 'active', limit: 2 } })).data.data ?? []
    ).filter((k) => k.status === 'active' && sameName(k.name, ref));
    if (named.length === 1) return named[0];
  }
  throw new UsageError(`no gateway key with the id or active name "${sanitize(ref, 100)}"`);
}
/** Names compared as the appliance does (SQLite's NOCASE): ASCII letters folded, nothing else. */
const sameName = (a: string, b: string) =>
  a.replace(/[A-Z]/g, (c) => c.toLowerCase()) === b.replace(/[A-Z]/g, (c) => c.toLowerCase());

const said = (k: GatewayKey) => `${sanitize(k.name, 64)} (${k.id})`;

async function rotate(client: ApiClient, ref: string, grace: number | undefined): Promise<number> {
  const key = await findKey(client, ref);
  const { data: rotated } = await client.call('rotateKey', {
    params: { id: key.id },
    body: grace === undefined ? {} : { grace_seconds: grace },
  });
  const old = rotated.previous_prefix ?? key.prefix;
  const oldSecret = inGrace(rotated)
    ? `the old secret ${old}… works until ${shortTime(rotated.previous_valid_until)} UTC, then the gateway refuses it`
    : `the gateway refuses the old secret ${old}… from now on`;
  printErr(`appliance-admin: rotated ${said(rotated)}: new prefix ${rotated.prefix}; ${oldSecret}`);
  printErr(
    'appliance-admin: warning: the new secret follows on stdout and is shown only now; store it, and do not leave it in a log or a shell history',
  );
  // the secret alone on stdout, so that a script can take it (… > file); never on stderr
  process.stdout.write(`${rotated.secret}\n`);
  return 0;
}

async function expire(client: ApiClient, ref: string, expiresAt: string | null): Promise<number> {
  const key = await findKey(client, ref);
  const { data: after } = await client.call('setKeyExpiry', {
    params: { id: key.id },
    body: { expires_at: expiresAt },
  });
  printOut(`${said(after)} ${expiryText(after) ?? 'does not expire'}`);
  return 0;
}

async function setBudget(client: ApiClient, ref: string, change: BudgetChange): Promise<number> {
  const key = await findKey(client, ref);
  // what is left out stays as the key has it (an appliance that says no budget has none)
  const had = key.budget ?? { per_day: null, per_month: null, warn_percent: undefined };
  const { data: after } = await client.call('setKeyBudget', {
    params: { id: key.id },
    body: {
      per_day: change.per_day === undefined ? had.per_day : change.per_day,
      per_month: change.per_month === undefined ? had.per_month : change.per_month,
      warn_percent: change.warn_percent ?? had.warn_percent,
    },
  });
  printOut(`${said(after)}: ${budgetText(after) ?? 'no budget'}${spentText(after) ? `; ${spentText(after)}` : ''}`);
  return 0;
}

async function nearBudget(client: ApiClient, json: boolean): Promise<number> {
  // page by page, only the keys with a budget (their own index): only the keys near one stay in memory
  const near: GatewayKey[] = [];
  await eachActiveKeyPage(client, (keys) => near.push(...keys.filter(isNearBudget)), { has_budget: 'true' });
  near.sort((a, b) => (fullestBudget(b)?.share ?? 0) - (fullestBudget(a)?.share ?? 0));
  if (json) {
    process.stdout.write(`${JSON.stringify(near, null, 2)}\n`);
    return 0;
  }
  printOut(`${near.length} active key${near.length === 1 ? '' : 's'} near or over a money budget`);
  if (!near.length) return 0;
  const rows = near.map((k) => [sanitize(k.name, 40), k.id, spendCell(k), nearBudgetText(k) ?? '']);
  printTable(['Name', 'Id', 'Spend', 'Why'], rows);
  return 0;
}

function printTable(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(widthOf(h), ...rows.map((r) => widthOf(r[i]))));
  for (const r of [head, ...rows])
    printOut(
      r
        .map((c, i) => fit(c, widths[i], 'left'))
        .join('  ')
        .trimEnd(),
    );
}

/**
 * The keys the appliance finds unused for `days` (its `unused_days` filter, over every key), longest
 * unused first, written page by page as they come: an appliance may hold a million keys, and the
 * CLI keeps one page in memory.
 */
async function unused(client: ApiClient, days: number, json: boolean): Promise<number> {
  const now = Date.now();
  let widths: number[] | null = null;
  let shown = 0;
  for (let after: string | undefined; ;) {
    const page = (
      await client.call('listKeys', {
        query: { unused_days: days, limit: 500, ...(after ? { after } : { count: 'true' }) },
      })
    ).data;
    const keys = page.data ?? [];
    if (after === undefined && !json) {
      const total = page.total ?? keys.length;
      const many = page.total_capped ? `More than ${total.toLocaleString('en-US')}` : String(total);
      printOut(`${many} active key${total === 1 && !page.total_capped ? '' : 's'} not used for ${days} days`);
    }
    if (json) {
      for (const k of keys)
        process.stdout.write(`${shown++ ? ',\n' : '[\n'}${JSON.stringify(k, null, 2).replace(/^/gm, '  ')}`);
    } else if (keys.length) {
      const rows = keys.map((k) => [
        sanitize(k.name, 40),
        k.id,
        k.prefix,
        k.last_used_at ? ago(k.last_used_at, now) : 'never',
        shortTime(k.created_at),
      ]);
      // the first page sets the columns; a later, longer cell widens only its own line
      if (!widths) {
        widths = UNUSED_HEAD.map((h, i) => Math.max(widthOf(h), ...rows.map((r) => widthOf(r[i]))));
        printRow(UNUSED_HEAD, widths);
      }
      for (const r of rows) printRow(r, widths);
    }
    if (!page.has_more || !page.next_cursor || page.next_cursor === after) break;
    after = page.next_cursor;
  }
  if (json) process.stdout.write(shown ? '\n]\n' : '[]\n');
  return 0;
}
const UNUSED_HEAD = ['Name', 'Id', 'Prefix', 'Last used', 'Created'];

function printRow(cells: string[], widths: number[]): void {
  printOut(
    cells
      .map((c, i) => fit(c, Math.max(widths[i], widthOf(c)), 'left'))
      .join('  ')
      .trimEnd(),
  );
}
