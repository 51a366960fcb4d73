/**
 * The dashboard's settings merged, before anything is read or connected: flags over the
 * environment over the config file over defaults (what `appliance-admin config` shows).
 */
import { displaySettings } from '../config/display-settings.js';
import { readInterval } from '../config/interval.js';
import { UsageError } from '../config/usage-error.js';
import { ROLES, type Role } from '../contract/roles.js';
import { screens } from '../../screens/index.js';
import { isThemeName, THEME_NAMES } from '../dashboard/kit/theme.js';
import { sanitize } from '../text/sanitize.js';
import { chooseAppliance } from './choose-appliance.js';
import type { ConfigFile } from './dashboard-config-file.js';
import { DASHBOARD_USAGE, parseInterval, readFlags } from './dashboard-flags.js';

/** The config file's `refresh` (checked when it was read), else 2 s. */
const readIntervalOr = (refresh: string | number | undefined): number => {
  const ms = readInterval(refresh ?? 2, 'refresh');
  return typeof ms === 'number' ? ms : 2000;
};

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
