/**
 * The commands that need the appliance's database (serve, demo, token, audit rotate-key) are not in
 * the single file (scripts/dist.mjs): its bundles get this module in their place, and the single
 * file itself (src/cli/single-file.ts) runs them from the Debian package's install when there is one.
 */

/** Said when the single file is asked for one of them and there is no install beside it to run it. */
export const hostOnlyMessage = (command: string): string =>
  `appliance-admin: \`${command}\` needs the appliance's database, which this single file does not hold.\n` +
  '  Install the Debian package (appliance-admin_VERSION_amd64.deb) on the appliance, or the npm package\n' +
  '  (npm install -g ./appliance-admin-VERSION.tgz), to run serve, demo, token and audit rotate-key.\n';

const hostOnly = (command: string) => async (): Promise<number> => {
  process.stderr.write(hostOnlyMessage(command));
  return 2;
};

// the names that main.ts and dashboard.ts import from the modules this one stands for
export const serveCommand = hostOnly('serve');
export const tokenCommand = hostOnly('token');
/** main.ts hands `audit` with no subcommand it knows to audit-rotate-key.ts, which says what there is. */
export const auditRotateKeyCommand = async (argv: string[]): Promise<number> => {
  if (argv[0] === 'rotate-key') return hostOnly('audit rotate-key')();
  process.stderr.write(
    'appliance-admin audit: name a subcommand: verify, fingerprint, prove, sample, verify-proof, witness or witness-key\n' +
      '  (rotate-key runs on the appliance, from the Debian package or npm)\n',
  );
  return 2;
};
export const startEmbeddedDemo = (): Promise<never> => Promise.reject(new Error(hostOnlyMessage('demo')));
