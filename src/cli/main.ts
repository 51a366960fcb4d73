import { fileURLToPath } from 'node:url';
import { isDashboard } from './commands.js';
import { reportFailure } from './failure.js';
import { versionLine } from './version-line.js';

const USAGE = `appliance-admin: terminal dashboard and reference server for the appliance administration API

  appliance-admin --url URL --token-file FILE                     the dashboard
  appliance-admin --appliance NAME                                the dashboard, on an appliance of the config file
  appliance-admin [--url URL]                                     the dashboard, signed in with appliance-admin login
  appliance-admin demo [--role auditor]                           dashboard on an embedded demo server
  appliance-admin serve --data DIR [--port P] [--demo]            the reference server
  appliance-admin token issue|list|revoke --data DIR …            on-host admin tokens
  appliance-admin audit rotate-key --data DIR                     on-host: a new audit signing key
  appliance-admin login --issuer URL --client-id ID               sign in with the identity provider
  appliance-admin logout                                          forget the stored sign-in
  appliance-admin get SCREEN [--json] --url URL --token-file FILE  one screen's data
  appliance-admin get overview --url URL --token-file FILE        the board for a monitor: exit 0 OK … 3 UNKNOWN
  appliance-admin watch [--json] [--exec CMD] --url URL --token-file FILE  a line per change of the board
  appliance-admin keys rotate KEY [--grace 24h] --url URL --token-file FILE  a gateway key's new secret, once
  appliance-admin keys expire KEY --at TIME|--in 30d|--never      when a gateway key stops working
  appliance-admin keys unused [--days 30] [--json]                 gateway keys nobody used lately
  appliance-admin keys budget KEY --per-day 5 --per-month 100      a gateway key's money budgets
  appliance-admin keys near-budget [--json]                        gateway keys near or over a budget
  appliance-admin export audit|journal --format csv|jsonl [--since 7d] -o FILE --url URL --token-file FILE
  appliance-admin audit verify FILE --key PEM_FILE | --url URL     prove an audit trail complete and unaltered
  appliance-admin audit fingerprint PEM_FILE                      a public key's fingerprint, as the screens show it
  appliance-admin audit prove SEQ… -o FILE | sample N --since 90d -o DIR  entries with inclusion proofs, to carry away
  appliance-admin audit verify-proof FILE --key PEM_FILE          check a proof file offline
  appliance-admin audit witness --url URL --key PEM_FILE --witness-key FILE  cosign what extends what it saw
  appliance-admin evidence --since 30d -o DIR | evidence verify DIR  an auditor's evidence pack
  appliance-admin config [init [--force]]                         the config file's path and settings; a starting file

Run a command with --help for its options; --version (-V) prints the version and the commit it was built from.`;

/** The audit subcommands that read an appliance or a file (rotate-key, and anything else, is the host's). */
const AUDIT_VERIFIERS = new Set([
  'verify',
  'fingerprint',
  'key',
  'prove',
  'sample',
  'verify-proof',
  'witness',
  'witness-key',
]);

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    if (isDashboard(argv)) {
      // from source (tests, development); from dist, bin/appliance-admin.cjs runs the dashboard itself
      return await (
        await import('./dashboard.js')
      ).dashboardCommand(argv, fileURLToPath(new URL('.', import.meta.url)));
    }
    switch (cmd) {
      case 'serve':
        return await (await import('./serve.js')).serveCommand(rest);
      case 'token':
        return await (await import('./token.js')).tokenCommand(rest);
      case 'login':
        return await (await import('./login.js')).loginCommand(rest);
      case 'logout':
        return await (await import('./logout.js')).logoutCommand(rest);
      case 'get':
        return await (await import('./get.js')).getCommand(rest);
      case 'watch':
        return await (await import('./watch.js')).watchCommand(rest);
      case 'export':
        return await (await import('./export.js')).exportCommand(rest);
      case 'keys':
        return await (await import('./keys.js')).keysCommand(rest);
      case 'audit':
        if (rest[0] === 'prove' || rest[0] === 'sample' || rest[0] === 'verify-proof')
          return await (await import('./audit-proof.js')).auditProofCommand(rest[0], rest.slice(1), process.env);
        if (rest[0] === 'witness' || rest[0] === 'witness-key')
          return await (await import('./audit-witness.js')).auditWitnessCommand(rest[0], rest.slice(1), process.env);
        return rest[0] === 'rotate-key'
          ? await (await import('./audit-rotate-key.js')).auditRotateKeyCommand(rest)
          : AUDIT_VERIFIERS.has(rest[0])
            ? await (await import('./audit-verify.js')).auditCommand(rest)
            : await (await import('./audit-rotate-key.js')).auditRotateKeyCommand(rest);
      case 'evidence':
        return await (await import('./evidence.js')).evidenceCommand(rest);
      case 'config':
        return await (await import('./config.js')).configCommand(rest);
      case '--help':
      case '-h':
      case 'help':
        console.log(USAGE);
        return 0;
      case '--version':
      case '-V':
        console.log(versionLine());
        return 0;
      default:
        throw new Error(`command ${cmd} is listed in commands.ts but not run here`);
    }
  } catch (err) {
    return reportFailure(err);
  }
}
