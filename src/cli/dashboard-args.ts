import { parseArgs } from 'node:util';
import { ROLES, type Role } from '../contract/common.js';
import { screens } from '../../screens/index.js';
import { sanitize } from '../text/sanitize.js';
import { isThemeName, THEME_NAMES, type ThemeName } from '../ui/theme.js';
import { UsageError } from './usage-error.js';
import {
  CONNECTION_OPTIONS,
  CONNECTION_USAGE,
  resolveConnection,
  type Connection,
  type TokenSource,
} from './connection.js';

export const DASHBOARD_USAGE = `Usage: appliance-admin [--url URL] [--token-file FILE] [--ca-file FILE] [--read-only] [--refresh 2s]
       appliance-admin demo [--role it_admin|app_owner|auditor] [--read-only] [--refresh 2s]

${CONNECTION_USAGE}
  --read-only        never offer changes, whatever the role
  --refresh 2s       poll interval (ms, s or m; default 2s)
  --screen NAME      the screen to start on
  --theme NAME       colours: dark (default), light (for a white background), high-contrast
  demo               run against an embedded demo appliance on loopback (what npm start does)`;

/** `2s`, `500ms`, `1m`, or a bare number of seconds. */
export function parseInterval(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(text.trim());
  if (!m) throw new UsageError(`--refresh must look like 2s, 500ms or 1m, got ${text}`);
  const n = Number(m[1]);
  const ms = m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
  if (ms < 200 || ms > 3_600_000) throw new UsageError('--refresh must be between 200ms and 60m');
  return Math.round(ms);
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
  theme: ThemeName;
}

export function parseDashboardArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Parsed | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...CONNECTION_OPTIONS,
      'read-only': { type: 'boolean', default: false },
      refresh: { type: 'string', default: '2s' },
      role: { type: 'string' },
      screen: { type: 'string' },
      theme: { type: 'string', default: 'dark' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return 'help';
  const [cmd, ...extra] = positionals;
  if (extra.length || (cmd !== undefined && cmd !== 'demo'))
    throw new UsageError(`unknown command ${positionals.join(' ')}\n${DASHBOARD_USAGE}`);
  const demo = cmd === 'demo';
  const refreshMs = parseInterval(values.refresh);
  if (values.screen !== undefined && !screens.some((s) => s.name === values.screen)) {
    throw new UsageError(
      `unknown screen "${sanitize(values.screen, 60)}"; the screens are: ${screens.map((s) => s.name).join(', ')}`,
    );
  }
  if (!isThemeName(values.theme))
    throw new UsageError(`--theme must be one of ${THEME_NAMES.join(', ')}, got ${sanitize(values.theme, 40)}`);
  const role = (values.role ?? 'it_admin') as Role;
  if (!(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const base = { demo, readOnly: values['read-only'], refreshMs, role, screen: values.screen, theme: values.theme };
  if (demo) {
    if (values.url || values['token-file'])
      throw new UsageError('demo runs its own appliance; it takes no --url or --token-file');
    return base;
  }
  if (values.role)
    throw new UsageError('--role only applies to demo; against an appliance the role comes from the token');
  return { ...base, ...resolveConnection(values, env, DASHBOARD_USAGE) };
}
