import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getAsset } from 'node:sea';
import { defaultCacheDir, runWithV8CodeCache } from './code-cache.js';
import { isDashboard } from './commands.js';
import { hostOnlyMessage } from './single-file-host-only.js';
import type * as DashboardBundle from './single-file-dashboard.js';
import type * as CliBundle from './main.js';

/**
 * The single executable's main script (scripts/dist.mjs builds it into Node 24 with postject). It
 * holds only this: the dashboard and the other commands are two CommonJS bundles among the
 * executable's assets, run with V8's code cache in the user's cache directory (src/cli/code-cache.ts)
 * as the npm build's dashboard is. Compiled when the executable was built, this script cannot
 * import(); the bundles need not (esbuild turned their import()s into requires of their own code).
 *
 * The commands that need the appliance's database are not in it: when the Debian package's install
 * lies beside it (`/usr/bin/appliance-admin` and `/usr/lib/appliance-admin/bin/appliance-admin.cjs`),
 * it runs them from there with its own Node, else it says where to get them and exits 2.
 */
export async function singleFile(argv: string[]): Promise<number | undefined> {
  // The installed CLI starting a child of its own (the demo's server: child_process.fork runs
  // process.execPath, this executable, with the script's path first): run as node would run it
  if (argv[0] !== undefined && isHostLauncher(argv[0])) {
    process.argv.splice(2, 1);
    return runOnHost(argv[1] ?? 'the installed CLI');
  }
  const hostCommand = databaseCommand(argv);
  if (hostCommand) return runOnHost(hostCommand);
  if (isDashboard(argv)) {
    const dashboard = runAsset<typeof DashboardBundle>('dashboard');
    return dashboard.exports.runDashboard(argv, () => dashboard.save());
  }
  const cli = runAsset<typeof CliBundle>('cli');
  const code = await cli.exports.main(argv);
  // the code compiled for a command that worked is kept for the next (once: a cache is not made again)
  if (code === 0) process.once('exit', () => cli.save());
  return code;
}

/** The command, as said in a message, when `argv` asks for one that needs the database. */
export function databaseCommand(argv: readonly string[]): string | undefined {
  const [command, sub] = argv;
  if (command === 'serve' || command === 'demo' || command === 'token') return command;
  if (command === 'audit' && sub === 'rotate-key') return 'audit rotate-key';
  return undefined;
}

/** The Debian package's CLI, where its layout puts it beside this executable (`<prefix>/bin` and `<prefix>/lib`). */
export const hostLauncher = (execPath = process.execPath): string =>
  join(dirname(execPath), '..', 'lib', 'appliance-admin', 'bin', 'appliance-admin.cjs');

function isHostLauncher(path: string): boolean {
  try {
    return realpathSync(path) === realpathSync(hostLauncher());
  } catch {
    return false;
  }
}

/**
 * Runs the command with the installed CLI: its launcher, loaded through an ordinary require (the
 * module loader reads it from disk, so it and what it imports may import()), reads the command
 * line from process.argv, as the `node` it was written for would give it, and sets the exit code.
 */
function runOnHost(command: string): number | undefined {
  const launcher = hostLauncher();
  if (!existsSync(launcher)) {
    process.stderr.write(hostOnlyMessage(command));
    return 2;
  }
  createRequire(launcher)(launcher);
  return undefined;
}

/** Built by scripts/dist.mjs: each bundle's asset key, whose name carries a hash of its code. */
declare const SINGLE_FILE_BUNDLES: Record<'dashboard' | 'cli', string>;

function runAsset<T>(name: 'dashboard' | 'cli') {
  const key = SINGLE_FILE_BUNDLES[name];
  const source = getAsset(key, 'utf8');
  // the module's name (its file beside the executable, which does not exist) names its code cache
  const file = join(dirname(process.execPath), `appliance-admin-${key}`);
  // the bundles require only Node's built-in modules: any require does
  return runWithV8CodeCache<T>(source, file, defaultCacheDir(), createRequire(file));
}
