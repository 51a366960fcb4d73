import { parseArgs } from 'node:util';
import { AuthSessionError, defaultSessionFile, logout } from '../client/session/index.js';
import { printErr, printOut } from './print.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

export const LOGOUT_USAGE = helpText(commandAt(['logout']));

export async function logoutCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help) {
    console.log(LOGOUT_USAGE);
    return 0;
  }
  try {
    const result = await logout();
    if (!result.removed) {
      printErr(`Not signed in (no session in ${defaultSessionFile()}); nothing to do.`);
      return 0;
    }
    const who = result.session?.subject ? ` (${result.session.name ?? result.session.subject})` : '';
    const where = result.session ? ` of ${result.session.issuer}${who}` : '';
    const revoked = result.revoked ? '; the identity provider revoked the refresh token' : '';
    // the name and issuer were the identity provider's words, kept in the session file
    printOut(`Signed out${where}: removed ${defaultSessionFile()}${revoked}.`);
    return 0;
  } catch (err) {
    if (err instanceof AuthSessionError) {
      printErr(`appliance-admin logout: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
