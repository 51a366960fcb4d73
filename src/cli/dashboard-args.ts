import { existsSync } from 'node:fs';
import { displaySettings, type DisplaySettings } from '../config/display-settings.js';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROLES, type Role } from '../contract/roles.js';
import { screens } from '../../screens/index.js';
import { configCheck } from '../dashboard/shell/config-check.js';
import { sanitize } from '../text/sanitize.js';
import { defaultSessionFile } from '../client/session/store.js';
import type { DashboardConfig } from '../config/schema.js';
import { readInterval } from '../config/interval.js';
import { isThemeName, THEME_NAMES, type ThemeName } from '../dashboard/kit/theme.js';
import { UsageError } from '../config/usage-error.js';
import { readKeysFile, type PinnedAuditKey } from '../audit-chain/keys-file.js';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, resolveConnection, type Connection } from './connection.js';
import type { TokenSource } from '../client/bearer-token.js';

export const DASHBOARD_USAGE = `Usage: appliance-admin [--url URL] [--token-file FILE] [--ca-file FILE] [--read-only] [--refresh 2s]
       appliance-admin --appliance NAME [--read-only] [--refresh 2s]
       appliance-admin demo [--role it_admin|app_owner|auditor] [--read-only] [--refresh 2s]

${CONNECTION_USAGE}
  --appliance NAME   an appliance named in the config file (its URL, token file, CA file, read-only, audit key)
  --audit-key FILE   the appliance's audit public key (PEM, from audit key -o, compared out of band):
                     the audit chain's checkpoints must verify with it, not with the keys it serves
  --read-only        never offer changes, whatever the role
  --refresh 2s       poll interval (ms, s or m; default 2s)
  --screen NAME      the screen to start on
  --screen-reader    say changes as short lines for a screen reader (also INK_SCREEN_READER=true)
  --theme NAME       colours: dark (default), light (for a white background), high-contrast
  --config FILE      the config file (default: $XDG_CONFIG_HOME/appliance-admin/config.yaml, else ~/.config/…)
  demo               run against an embedded demo appliance on loopback (what npm start does)

Settings come from, each over the one before: defaults, the config file, the environment, flags.`;

export const DASHBOARD_OPTIONS = {
  ...CONNECTION_OPTIONS,
  appliance: { type: 'string' },
  'audit-key': { type: 'string' },
  config: { type: 'string' },
  'read-only': { type: 'boolean', default: false },
  refresh: { type: 'string' },
  role: { type: 'string' },
  screen: { type: 'string' },
  'screen-reader': { type: 'boolean', default: false },
  theme: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `2s`, `500ms`, `1m`, or a bare number of seconds. */
export function parseInterval(text: string): number {
  const ms = readInterval(text, '--refresh');
  if (typeof ms === 'string') throw new UsageError(ms);
  return ms;
}

/** The config file's `refresh` (checked when it was read), else 2 s. */
const readIntervalOr = (refresh: string | number | undefined): number => {
  const ms = readInterval(refresh ?? 2, 'refresh');
  return typeof ms === 'number' ? ms : 2000;
};

/** The config file as read (load.ts), with where it was. */
export interface ConfigFile {
  file: string;
  config: DashboardConfig;
}

interface Parsed {
  demo: boolean;
  url?: string;
  token?: TokenSource;
  /** the token comes from the stored sign-in (no --token-file, no APPLIANCE_ADMIN_TOKEN) */
  session?: Connection['session'];
  ca?: Buffer;
  readOnly: boolean;
  refreshMs: number;
  role: Role;
  screen?: string;
  /** the appliance of the config file in use, by name */
  appliance?: string;
  /** the audit key pinned for it (--audit-key, the appliance's audit-key), read */
  auditKey?: PinnedAuditKey;
  display: DisplaySettings;
  /** lines for a screen reader instead of frames (src/dashboard/terminal/screen-reader/) */
  screenReader: boolean;
  /** --theme, else the config file's, else dark */
  theme: ThemeName;
}

type Flags = ReturnType<typeof readFlags>['values'];

function readFlags(argv: string[]) {
  return parseArgs({ args: argv, options: DASHBOARD_OPTIONS, allowPositionals: true, strict: true });
}

/** --config FILE, else config.yaml beside the stored sign-in ($XDG_CONFIG_HOME/appliance-admin, else ~/.config/…). */
export const configFilePath = (flag: string | undefined, env: NodeJS.ProcessEnv): string =>
  flag ?? join(dirname(defaultSessionFile(env)), 'config.yaml');

/**
 * The config file, when there is one (or --config names one). Its reader, with zod's schema and
 * the YAML parser, is loaded only then: without a file the dashboard starts without them.
 */
export async function readConfigFile(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<ConfigFile | undefined> {
  const file = configFilePath(flag, env);
  if (flag === undefined && !existsSync(file)) return undefined;
  const { loadConfigFile } = await import('../config/load.js');
  return { file, config: loadConfigFile(file, configCheck(screens)) };
}

/** The dashboard's command line with its config file: what src/cli/dashboard.ts starts. */
export async function dashboardArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<(Parsed & { configFile: string; appliances: string[] }) | 'help'> {
  const { values } = readFlags(argv);
  if (values.help) return 'help';
  const file = await readConfigFile(values.config, env);
  const parsed = parseDashboardArgs(argv, env, file);
  if (parsed === 'help') return parsed;
  // for `:appliance NAME` and `:columns save`
  return {
    ...parsed,
    configFile: configFilePath(values.config, env),
    appliances: Object.keys(file?.config.appliances ?? {}),
  };
}

/**
 * The command line to start on another configured appliance (`:appliance NAME`): the same, with
 * its connection (demo, --url, --token-file, --ca-file, --appliance) replaced by --appliance NAME.
 */
export function argvForAppliance(argv: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === 'demo' || a === '--insecure-http') continue;
    // the audit key pinned for one appliance is not another's
    if (['--url', '--token-file', '--ca-file', '--appliance', '--role', '--audit-key'].includes(a)) {
      i++;
      continue;
    }
    if (/^--(url|token-file|ca-file|appliance|role|audit-key)=/.test(a)) continue;
    out.push(a);
  }
  return [...out, '--appliance', name];
}

/**
 * Flags over the environment over the config file over defaults. An appliance named by
 * --appliance counts as flags (its token file wins over APPLIANCE_ADMIN_TOKEN); the file's
 * default-appliance as the file, and only when neither --url nor --appliance is given, so that
 * its token never goes to another URL.
 */
export function parseDashboardArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  configFile?: ConfigFile,
): Parsed | 'help' {
  const settings = effectiveSettings(argv, env, configFile);
  if (settings === 'help') return settings;
  const { connection, fileTokenFile, auditKeyFile, ...rest } = settings;
  const auditKey = auditKeyFile === undefined ? undefined : readAuditKey(auditKeyFile);
  const pinned = auditKey ? { auditKey } : {};
  if (rest.demo) return { ...rest, ...pinned };
  return {
    ...rest,
    ...pinned,
    ...resolveConnection(connection, env, DASHBOARD_USAGE, fileTokenFile),
  };
}

/**
 * The pinned audit key file, read as the dashboard starts (a file that cannot be used stops it,
 * as a CA file does); its keys are parsed with the chain checks, after the first frame.
 */
function readAuditKey(file: string): PinnedAuditKey {
  const read = readKeysFile(file);
  if (typeof read === 'string') throw new UsageError(read);
  return read;
}

/** The merged settings before anything is read or connected: what `appliance-admin config` shows. */
export function effectiveSettings(argv: string[], env: NodeJS.ProcessEnv, configFile: ConfigFile | undefined) {
  const { values, positionals } = readFlags(argv);
  if (values.help) return 'help';
  const [cmd, ...extra] = positionals;
  if (extra.length || (cmd !== undefined && cmd !== 'demo'))
    throw new UsageError(`unknown command ${positionals.join(' ')}\n${DASHBOARD_USAGE}`);
  const demo = cmd === 'demo';
  const c = configFile?.config ?? {};
  const refreshMs = values.refresh !== undefined ? parseInterval(values.refresh) : readIntervalOr(c.refresh);
  if (values.screen !== undefined && !screens.some((s) => s.name === values.screen)) {
    throw new UsageError(
      `unknown screen "${sanitize(values.screen, 60)}"; the screens are: ${screens.map((s) => s.name).join(', ')}`,
    );
  }
  const theme = values.theme ?? c.theme ?? 'dark';
  if (!isThemeName(theme))
    throw new UsageError(`--theme must be one of ${THEME_NAMES.join(', ')}, got ${sanitize(theme, 40)}`);
  const role = (values.role ?? 'it_admin') as Role;
  if (!(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  // Ink's own switch turns on the dashboard's screen-reader mode (src/dashboard/terminal/screen-reader/)
  const screenReader = values['screen-reader'] || env.INK_SCREEN_READER === 'true';
  const base = {
    demo,
    readOnly: values['read-only'],
    refreshMs,
    role,
    screen: values.screen ?? c.screen,
    display: { ...displaySettings(c), theme },
    theme,
    screenReader,
  };
  if (demo) {
    if (values.url || values['token-file'] || values.appliance)
      throw new UsageError('demo runs its own appliance; it takes no --url, --token-file or --appliance');
    return {
      ...base,
      appliance: undefined,
      connection: {},
      fileTokenFile: undefined,
      auditKeyFile: values['audit-key'],
    };
  }
  if (values.role)
    throw new UsageError('--role only applies to demo; against an appliance the role comes from the token');
  const { appliance, named, fileTokenFile } = chooseAppliance(values, configFile, env);
  return {
    ...base,
    readOnly: base.readOnly || appliance?.['read-only'] === true,
    appliance: appliance && (values.appliance ?? c['default-appliance']),
    connection: {
      'insecure-http': values['insecure-http'],
      url: values.url ?? appliance?.url,
      'token-file': values['token-file'] ?? (named ? appliance?.['token-file'] : undefined),
      'ca-file': values['ca-file'] ?? appliance?.['ca-file'],
    },
    /** the default appliance's token file, which APPLIANCE_ADMIN_TOKEN overrides */
    fileTokenFile,
    /** the audit key pinned for this appliance: the flag's, else the chosen appliance's */
    auditKeyFile: values['audit-key'] ?? appliance?.['audit-key'],
  };
}

function chooseAppliance(values: Flags, configFile: ConfigFile | undefined, env: NodeJS.ProcessEnv) {
  const appliances = configFile?.config.appliances ?? {};
  if (values.appliance !== undefined) {
    if (values.url) throw new UsageError('--appliance and --url both name the appliance: give one');
    const appliance = appliances[values.appliance];
    if (!appliance) {
      const names = Object.keys(appliances);
      throw new UsageError(
        `no appliance "${sanitize(values.appliance, 60)}" in ${configFile?.file ?? configFilePath(undefined, env)}` +
          (names.length ? ` (it names: ${names.join(', ')})` : ''),
      );
    }
    return { appliance, named: true };
  }
  const byDefault = configFile?.config['default-appliance'];
  if (values.url || byDefault === undefined) return { appliance: undefined, named: false };
  const appliance = appliances[byDefault];
  return { appliance, named: false, fileTokenFile: appliance?.['token-file'] };
}
