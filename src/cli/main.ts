import { fileURLToPath } from 'node:url';
import { isDashboard } from './commands.js';
import { reportFailure } from './failure.js';
import { versionLine } from './version-line.js';
import { findCommand, TABLE } from './command-table/index.js';
import { helpText, overviewText } from './command-table/help.js';

/** --help or -h among a command's words, before any `--` (after it, they are arguments). */
const asksHelp = (argv: readonly string[]): boolean => {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
};

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
    // every command's help is its page in the command table, as the man pages and completions are
    // (__complete's words are a command line being typed, not its own)
    if (!['--help', '-h', 'help', '__complete'].includes(cmd) && asksHelp(rest)) {
      console.log(helpText(findCommand(argv)));
      return 0;
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
      case 'man':
        return (await import('./man.js')).manCommand(rest);
      case 'completion':
        return (await import('./completion.js')).completionCommand(rest);
      case '__complete':
        return await (await import('./completion.js')).completeCommand(rest, process.env);
      case '--help':
      case '-h':
      case 'help':
        console.log(overviewText(TABLE));
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
