import { parseArgs } from 'node:util';
import { AuthSessionError, defaultSessionFile, logout } from '../auth-session/index.js';

export const LOGOUT_USAGE = `Usage: appliance-admin logout

  Removes the stored sign-in ($XDG_CONFIG_HOME/appliance-admin/session.json) and, when the
  identity provider offers it, revokes its refresh token there.`;

export async function logoutCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help) {
    console.log(LOGOUT_USAGE);
    return 0;
  }
  try {
    const result = await logout();
    if (!result.removed) {
      process.stderr.write(`Not signed in (no session in ${defaultSessionFile()}); nothing to do.\n`);
      return 0;
    }
    const who = result.session?.subject ? ` (${result.session.name ?? result.session.subject})` : '';
    const where = result.session ? ` of ${result.session.issuer}${who}` : '';
    const revoked = result.revoked ? '; the identity provider revoked the refresh token' : '';
    process.stdout.write(`Signed out${where}: removed ${defaultSessionFile()}${revoked}.\n`);
    return 0;
  } catch (err) {
    if (err instanceof AuthSessionError) {
      process.stderr.write(`appliance-admin logout: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
