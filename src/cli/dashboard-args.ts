/**
 * The dashboard's command line resolved: its settings (dashboard-settings.ts) with the connection
 * made from them (the URL, the token, the CA) and the pinned audit key read.
 */

import type { DisplaySettings } from '../config/display-settings.js';
import type { Role } from '../contract/roles.js';
import type { ThemeName } from '../dashboard/kit/theme.js';
import { UsageError } from '../config/usage-error.js';
import { readKeysFile, type PinnedAuditKey } from '../audit-chain/keys-file.js';
import { resolveConnection, type Connection } from './connection.js';
import type { TokenSource } from '../client/bearer-token.js';
import { configFilePath, readConfigFile, type ConfigFile } from './dashboard-config-file.js';
import { DASHBOARD_USAGE, readFlags } from './dashboard-flags.js';
import { effectiveSettings } from './dashboard-settings.js';

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
