/** `keys`: gateway keys from a script. */
import { UNUSED_DAYS } from '../../dashboard/kit/key-lifecycle.js';
import { CONNECTION } from './shared-options.js';
import type { CommandSpec, OptionSpec } from './spec.js';

const JSON_LIST: OptionSpec = { name: 'json', description: 'the keys as the appliance lists them, a JSON array' };
const KEY = [{ name: 'KEY', completes: 'none' }] as const;

export const KEYS: CommandSpec = {
  name: 'keys',
  summary: 'gateway keys: rotate, expire, budgets, the unused ones',
  usage: [],
  description: "Gateway keys from a script. KEY is a key's id (key_…) or the name of one active key.",
  shared: CONNECTION,
  subcommands: [
    {
      name: 'rotate',
      summary: "a gateway key's new secret, printed once",
      usage: ['keys rotate KEY [--grace 24h] [--url URL] [--token-file FILE] [--ca-file FILE]'],
      brief: 'keys rotate KEY [--grace 24h]',
      description: `gives the key a new secret and prints it once, alone on stdout (what it did and
the warning go to stderr); id, name, quota and usage stay. The old secret keeps
working for the grace, then the gateway refuses it; a rotation during a grace
ends that grace.`,
      arguments: KEY,
      options: [
        {
          name: 'grace',
          value: 'LENGTH',
          description: `how long the old secret still works: 0, 90s, 30m, 12h, 7d (default 24h, at
most 30d)`,
        },
      ],
    },
    {
      name: 'expire',
      summary: 'when a gateway key stops working',
      usage: ['keys expire KEY --at TIME | --in 30d | --never [connection options]'],
      brief: 'keys expire KEY --at TIME|--in 30d|--never',
      description: 'sets when the gateway starts refusing the key (401), or clears it',
      arguments: KEY,
      options: [
        {
          name: 'at',
          value: 'TIME',
          description: 'an RFC 3339 time or a date (2026-12-31, 2026-12-31 18:00; no zone: UTC)',
        },
        { name: 'in', value: 'LENGTH', description: 'that long from now (30d, 12h, 2w)' },
        { name: 'never', description: 'the key does not expire' },
      ],
    },
    {
      name: 'unused',
      summary: 'gateway keys nobody used lately',
      usage: [`keys unused [--days ${UNUSED_DAYS}] [--json] [connection options]`],
      brief: `keys unused [--days ${UNUSED_DAYS}] [--json]`,
      description: `active keys not used for --days days (a key never used counts from its
creation), oldest use first`,
      options: [{ name: 'days', value: 'N', description: `default ${UNUSED_DAYS}` }, JSON_LIST],
    },
    {
      name: 'budget',
      summary: "a gateway key's money budgets",
      usage: ['keys budget KEY [--per-day AMOUNT] [--per-month AMOUNT] [--warn-percent P] [connection options]'],
      brief: 'keys budget KEY --per-day 5 --per-month 100',
      description: `sets the key's money budgets, in the appliance's currency (it needs pricing); a
call that would pass one is refused (429) until the UTC day or month ends`,
      arguments: KEY,
      options: [
        {
          name: 'per-day',
          value: 'AMOUNT',
          description: 'per UTC day: 5, 12.50, or none to clear it; left out: unchanged',
        },
        { name: 'per-month', value: 'AMOUNT', description: 'per calendar month (UTC), the same way' },
        {
          name: 'warn-percent',
          value: 'P',
          description: 'the share of a budget the dashboard warns at, 1 to 100 (default 80)',
        },
      ],
    },
    {
      name: 'near-budget',
      summary: 'gateway keys near or over a budget',
      usage: ['keys near-budget [--json] [connection options]'],
      brief: 'keys near-budget [--json]',
      description: 'active keys past the share of a budget they warn at, or at it, fullest first',
      options: [JSON_LIST],
    },
  ],
  exitStatus: '0 done, 1 the appliance refused or could not be reached, 2 bad usage or no such key.',
  notes: "The admin token is never printed; a key's secret only by rotate, once.",
  examples: [
    { command: 'keys rotate billing-batch --grace 2h', says: 'a new secret; the old one works two more hours' },
    { command: 'keys unused --days 60 --json', says: 'keys idle for 60 days, as JSON' },
  ],
};
