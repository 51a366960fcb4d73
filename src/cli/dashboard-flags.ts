/** The dashboard's command line as written: its usage, its flags, and the flags to start on another appliance. */
import { parseArgs } from 'node:util';
import { readInterval } from '../config/interval.js';
import { UsageError } from '../config/usage-error.js';
import { CONNECTION_OPTIONS } from './connection.js';
import { DASHBOARD } from './command-table/dashboard.js';
import { helpText } from './command-table/help.js';

export const DASHBOARD_USAGE = helpText({ spec: DASHBOARD, parents: [], path: [] });

export const DASHBOARD_OPTIONS = {
  ...CONNECTION_OPTIONS,
  appliance: { type: 'string' },
  'audit-key': { type: 'string' },
  config: { type: 'string' },
  'read-only': { type: 'boolean', default: false },
  refresh: { type: 'string' },
  role: { type: 'string' },
  screen: { type: 'string' },
  'screen-reader': { type: 'boolean', default: false },
  theme: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `2s`, `500ms`, `1m`, or a bare number of seconds. */
export function parseInterval(text: string): number {
  const ms = readInterval(text, '--refresh');
  if (typeof ms === 'string') throw new UsageError(ms);
  return ms;
}

export type Flags = ReturnType<typeof readFlags>['values'];

export function readFlags(argv: string[]) {
  return parseArgs({ args: argv, options: DASHBOARD_OPTIONS, allowPositionals: true, strict: true });
}

/**
 * The command line to start on another configured appliance (`:appliance NAME`): the same, with
 * its connection (demo, --url, --token-file, --ca-file, --appliance) replaced by --appliance NAME.
 */
export function argvForAppliance(argv: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === 'demo' || a === '--insecure-http') continue;
    // the audit key pinned for one appliance is not another's
    if (['--url', '--token-file', '--ca-file', '--appliance', '--role', '--audit-key'].includes(a)) {
      i++;
      continue;
    }
    if (/^--(url|token-file|ca-file|appliance|role|audit-key)=/.test(a)) continue;
    out.push(a);
  }
  return [...out, '--appliance', name];
}
