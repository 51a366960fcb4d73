/**
 * The top-level commands' names, alone: the launcher (bin/appliance-admin.cjs, through
 * src/cli/commands.ts) decides with them whether a command line is the dashboard's, and must not
 * load the rest of the table to start. The table (index.ts) has one entry for each, which the
 * type checker holds it to.
 */
export const COMMAND_NAMES = [
  'serve',
  'token',
  'login',
  'logout',
  'get',
  'watch',
  'export',
  'keys',
  'audit',
  'evidence',
  'config',
  'completion',
  'man',
  '__complete',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

/** What the top level takes besides commands: help and the version. */
export const TOP_LEVEL_WORDS = ['--help', '-h', 'help', '--version', '-V'] as const;
