/**
 * The commands that are not the dashboard (anything else on the command line is the dashboard's):
 * main.ts runs them; bin/appliance-admin.cjs, through launch.ts, decides with this same list
 * whether to start the dashboard itself or hand over to main.ts.
 */
const COMMANDS = new Set([
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
  '--help',
  '-h',
  'help',
  '--version',
  '-V',
]);

export const isDashboard = (argv: readonly string[]): boolean => !COMMANDS.has(argv[0]);
