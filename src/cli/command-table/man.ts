/** `man`: the man pages, printed, for the single file (which has no /usr/share/man to put them in). */
import { COMMAND_NAMES } from './names.js';
import type { CommandSpec } from './spec.js';

export const MAN: CommandSpec = {
  name: 'man',
  summary: 'a man page, printed as roff on stdout (read it with man -l -)',
  usage: ['man [COMMAND]'],
  description: `Prints appliance-admin(1), or appliance-admin-COMMAND(1) for a command, made from the same
table as --help. The .deb and npm install -g put the pages where man finds them; the single file
carries them this way:
  appliance-admin man audit | man -l -`,
  arguments: [{ name: 'COMMAND', completes: { choices: COMMAND_NAMES.filter((n) => !n.startsWith('_')) } }],
  exitStatus: '0 printed, 2 bad usage (an unknown command).',
  examples: [{ command: 'man keys | man -l -', says: 'the keys commands, read in man' }],
};
