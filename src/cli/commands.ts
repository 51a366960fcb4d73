/**
 * The commands that are not the dashboard (anything else on the command line is the dashboard's):
 * main.ts runs them; bin/appliance-admin.cjs, through launch.ts, decides with this same list
 * whether to start the dashboard itself or hand over to main.ts. The command table's names alone
 * (command-table/names.ts), so that the launcher stays small.
 */
import { COMMAND_NAMES, TOP_LEVEL_WORDS } from './command-table/names.js';

const COMMANDS = new Set<string>([...COMMAND_NAMES, ...TOP_LEVEL_WORDS]);

export const isDashboard = (argv: readonly string[]): boolean => !COMMANDS.has(argv[0]);
