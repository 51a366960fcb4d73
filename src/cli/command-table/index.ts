/**
 * The command table: every command, subcommand and option of appliance-admin, said once. --help
 * (help.ts), the shell completions (src/cli/completion.ts) and the man pages (src/cli/man-pages.ts)
 * are made from it, so they never disagree. Adding a command: its entry in its group's file, its
 * name in names.ts, and its case in main.ts.
 */
import { AUDIT } from './audit.js';
import { COMPLETE, COMPLETION } from './completion.js';
import { CONFIG } from './config.js';
import { DASHBOARD } from './dashboard.js';
import { EVIDENCE } from './evidence.js';
import { EXPORT } from './export.js';
import { GET, WATCH } from './get.js';
import { KEYS } from './keys.js';
import { LOGIN, LOGOUT } from './login.js';
import { MAN } from './man.js';
import type { CommandName } from './names.js';
import { SERVE } from './serve.js';
import type { CommandSpec, Found } from './spec.js';
import { TOKEN } from './token.js';

/** One entry per top-level command (the type holds it to names.ts), in the order help lists them. */
const COMMANDS: { [name in CommandName]: CommandSpec } = {
  serve: SERVE,
  token: TOKEN,
  login: LOGIN,
  logout: LOGOUT,
  get: GET,
  watch: WATCH,
  export: EXPORT,
  keys: KEYS,
  audit: AUDIT,
  evidence: EVIDENCE,
  config: CONFIG,
  completion: COMPLETION,
  man: MAN,
  __complete: COMPLETE,
};

/** The whole command line: the dashboard, with its demo and every command below it. */
export const TABLE: CommandSpec = {
  ...DASHBOARD,
  summary: 'terminal dashboard and reference server for the appliance administration API',
  subcommands: [...(DASHBOARD.subcommands ?? []), ...Object.values(COMMANDS)],
};

/** The top-level commands, each a man page's group (the dashboard's demo is in appliance-admin(1)). */
export const GROUPS: readonly CommandSpec[] = Object.values(COMMANDS).filter((c) => !c.hidden);

/** The deepest command the leading words name (options and arguments end the walk). */
export function findCommand(words: readonly string[]): Found {
  let found: Found = { spec: TABLE, parents: [], path: [] };
  for (const word of words) {
    const sub = found.spec.subcommands?.find((s) => s.name === word);
    if (!sub) break;
    found = { spec: sub, parents: [...found.parents, found.spec], path: [...found.path, word] };
  }
  return found;
}

/** The table's entry for these words, which must name it exactly (the command files' own help). */
export function commandAt(path: readonly string[]): Found {
  const found = findCommand(path);
  if (found.path.length !== path.length) throw new Error(`no command "${path.join(' ')}" in the command table`);
  return found;
}

export { optionsOf } from './spec.js';
export type { CommandSpec, OptionSpec, Completes, Found } from './spec.js';
