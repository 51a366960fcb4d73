/** The dashboard itself (appliance-admin with no command) and its demo: appliance-admin(1). */
import { ROLES } from '../../contract/roles.js';
import { APPLIANCE, CONFIG_FILE, CONNECTION, REFRESH } from './shared-options.js';
import type { CommandSpec, OptionSpec } from './spec.js';

/** What the dashboard takes on any appliance, the demo's included. */
const DISPLAY: readonly OptionSpec[] = [
  { name: 'read-only', description: 'never offer changes, whatever the role' },
  { ...REFRESH, description: 'poll interval: 500ms, 2s, 1m (default 2s)' },
  { name: 'screen', value: 'NAME', completes: 'screens', description: 'the screen to start on' },
  {
    name: 'screen-reader',
    description: 'say changes as short lines for a screen reader (also INK_SCREEN_READER=true)',
  },
  {
    name: 'theme',
    value: 'NAME',
    completes: { choices: ['dark', 'light', 'high-contrast'] },
    description: 'colours: dark (default), light (for a white background), high-contrast',
  },
  CONFIG_FILE,
];

const DEMO: CommandSpec = {
  name: 'demo',
  summary: 'the dashboard on an embedded demo appliance on loopback (what npm start does)',
  usage: [`demo [--role ${ROLES.join('|')}] [--read-only] [--refresh 2s]`],
  brief: 'demo [--role auditor]',
  options: [
    {
      name: 'role',
      value: 'ROLE',
      completes: { choices: ROLES },
      description: `the demo token's role: ${ROLES.join(', ')} (default ${ROLES[0]})`,
    },
    ...DISPLAY,
  ],
};

export const DASHBOARD: CommandSpec = {
  name: '',
  summary: 'terminal dashboard for the appliance administration API',
  usage: [
    '[--url URL] [--token-file FILE] [--ca-file FILE] [--read-only] [--refresh 2s]',
    '--appliance NAME [--read-only] [--refresh 2s]',
  ],
  brief: '[--url URL] [--token-file FILE] | --appliance NAME',
  description: `The dashboard: one screen per part of the appliance (Tab and the screen's letter move
between them; ? lists the keys). Without --url, --token-file or --appliance: the config file's
default appliance, else the stored sign-in of appliance-admin login and its appliance.`,
  options: [
    ...CONNECTION,
    APPLIANCE,
    {
      name: 'audit-key',
      value: 'FILE',
      completes: 'files',
      description: `the appliance's audit public key (PEM, from audit key -o, compared out of band):
the audit chain's checkpoints must verify with it, not with the keys it serves`,
    },
    ...DISPLAY,
  ],
  subcommands: [DEMO],
  notes: 'Settings come from, each over the one before: defaults, the config file, the environment, flags.',
  examples: [
    { command: '--appliance lab', says: 'the dashboard on the appliance the config file names lab' },
    { command: 'demo --role auditor', says: 'the demo appliance, as an auditor sees it' },
  ],
};
