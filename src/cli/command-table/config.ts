/** `config`: where the config file is and what the dashboard would use; a starting file. */
import { CONFIG_FILE } from './shared-options.js';
import type { CommandSpec } from './spec.js';
import { DASHBOARD } from './dashboard.js';

export const CONFIG: CommandSpec = {
  name: 'config',
  summary: "the config file's path and the effective settings; a starting file",
  usage: ['config [--config FILE] [dashboard options]'],
  brief: 'config [init [--force]]',
  description: `Prints the config file's path and the settings the dashboard would use with the same
options (token files as paths, never a token).
Settings come from, each over the one before: defaults, the config file, the environment
(APPLIANCE_ADMIN_TOKEN, NO_COLOR), the command line's options.`,
  // the dashboard's options: config shows what they would make of the settings
  options: DASHBOARD.options,
  subcommands: [
    {
      name: 'init',
      summary: 'write a commented starting file (mode 0600)',
      usage: ['config init [--config FILE] [--force]'],
      options: [CONFIG_FILE, { name: 'force', description: 'replace the file if it exists' }],
    },
  ],
};
