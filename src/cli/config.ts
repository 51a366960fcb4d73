import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { screens } from '../../screens/index.js';
import { checkConfigFolder } from '../config/read.js';
import { starterConfig } from '../config/starter.js';
import { DASHBOARD_OPTIONS } from './dashboard-flags.js';
import { configFilePath, readConfigFile } from './dashboard-config-file.js';
import { effectiveSettings } from './dashboard-settings.js';
import { terminalText } from './print.js';
import { UsageError } from '../config/usage-error.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

const USAGE = helpText(commandAt(['config']));

/** dist/config.schema.json (scripts/build.mjs), from dist/ or from source. */
function schemaPath(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  return join(basename(here) === 'dist' ? here : join(here, '..', '..', 'dist'), 'config.schema.json');
}

export async function configCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv[0] === 'init') return init(argv.slice(1), env);
  const { values } = parseArgs({ args: argv, options: DASHBOARD_OPTIONS, allowPositionals: true, strict: true });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const configFile = await readConfigFile(values.config, env);
  const s = effectiveSettings(argv, env, configFile);
  if (s === 'help') return 0;
  const file = configFile?.file ?? configFilePath(values.config, env);
  const c = s.connection;
  const token = c['token-file']
    ? { 'token-file': c['token-file'] }
    : env.APPLIANCE_ADMIN_TOKEN?.trim()
      ? { token: 'from APPLIANCE_ADMIN_TOKEN' }
      : s.fileTokenFile
        ? { 'token-file': s.fileTokenFile }
        : { token: 'the stored sign-in (appliance-admin login)' };
  // what the dashboard would use, in the file's own spelling; token files are paths, never tokens
  const shown = {
    ...(s.demo ? { appliance: 'demo' } : { appliance: s.appliance, url: c.url, ...token, 'ca-file': c['ca-file'] }),
    'audit-key': s.auditKeyFile,
    'read-only': s.readOnly,
    screen: s.screen ?? screens[0].name,
    refresh: s.refreshMs % 1000 ? `${s.refreshMs}ms` : `${s.refreshMs / 1000}s`,
    theme: env.NO_COLOR ? `${s.display.theme} (no colour: NO_COLOR is set)` : s.display.theme,
    notify: s.display.notify,
    'export-folder': s.display.exportFolder,
    aliases: s.display.aliases,
    keys: s.display.keys,
    screens: s.display.screenPrefs,
  };
  const where = configFile ? file : `${file} (none: the defaults)`;
  process.stdout.write(terminalText(`# ${where}\n${stringify(shown)}`));
  return 0;
}

function init(argv: string[], env: NodeJS.ProcessEnv): number {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: 'string' }, force: { type: 'boolean', default: false }, help: { type: 'boolean' } },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const file = configFilePath(values.config, env);
  // a folder it makes and the file are never writable by group or others, whatever the umask; a
  // folder already there that the dashboard would refuse is said now, before writing into it
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  checkConfigFolder(dirname(resolve(file)), file);
  try {
    writeFileSync(file, starterConfig(schemaPath()), { mode: 0o600, flag: values.force ? 'w' : 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UsageError(`${file} already exists; appliance-admin config init --force replaces it`);
    throw new UsageError(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  chmodSync(file, 0o600); // --force over a file that had another mode
  process.stdout.write(terminalText(`wrote ${file}\n`));
  return 0;
}
