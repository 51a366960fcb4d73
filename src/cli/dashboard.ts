import { parseArgs } from 'node:util';
import { readFileSync, statSync } from 'node:fs';
import { ROLES, type Role } from '../contract/common.js';
import { UsageError } from './serve.js';

export const DASHBOARD_USAGE = `Usage: appliance-admin --url URL [--token-file FILE] [--ca-file FILE] [--read-only] [--refresh 2s]
       appliance-admin demo [--role it_admin|app_owner|auditor] [--read-only] [--refresh 2s]

  --url URL          the appliance (http(s)://host:port, with or without /v1/admin)
  --token-file FILE  a file holding the bearer token, mode 0600 (or set APPLIANCE_ADMIN_TOKEN)
  --ca-file FILE     PEM CA certificate to trust for the appliance's TLS
  --read-only        never offer changes, whatever the role
  --refresh 2s       poll interval (ms, s or m; default 2s)
  --screen NAME      the screen to start on
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

/** Reads a token file, refusing one that group or others can read. */
export function readTokenFile(file: string): string {
  let st;
  try {
    st = statSync(file);
  } catch {
    throw new UsageError(`cannot read the token file ${file}`);
  }
  if (!st.isFile()) throw new UsageError(`the token file ${file} is not a regular file`);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
    throw new UsageError(`the token file ${file} is readable by group or others (mode ${mode}); run: chmod 600 ${file}`);
  }
  const token = readFileSync(file, 'utf8').trim();
  if (!token) throw new UsageError(`the token file ${file} is empty`);
  if (/\s/.test(token)) throw new UsageError(`the token file ${file} must hold one token on one line`);
  return token;
}

interface Parsed {
  demo: boolean;
  url?: string;
  token?: string;
  ca?: Buffer;
  readOnly: boolean;
  refreshMs: number;
  role: Role;
  screen?: string;
}

export function parseDashboardArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Parsed | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      'token-file': { type: 'string' },
      'ca-file': { type: 'string' },
      'read-only': { type: 'boolean', default: false },
      refresh: { type: 'string', default: '2s' },
      role: { type: 'string' },
      screen: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return 'help';
  const [cmd, ...extra] = positionals;
  if (extra.length || (cmd !== undefined && cmd !== 'demo')) throw new UsageError(`unknown command ${positionals.join(' ')}\n${DASHBOARD_USAGE}`);
  const demo = cmd === 'demo';
  const refreshMs = parseInterval(values.refresh);
  const role = (values.role ?? 'it_admin') as Role;
  if (!(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const base = { demo, readOnly: values['read-only'], refreshMs, role, screen: values.screen };
  if (demo) {
    if (values.url || values['token-file']) throw new UsageError('demo runs its own appliance; it takes no --url or --token-file');
    return base;
  }
  if (values.role) throw new UsageError('--role only applies to demo; against an appliance the role comes from the token');
  if (!values.url) throw new UsageError(`--url URL is required (or run: appliance-admin demo)\n${DASHBOARD_USAGE}`);
  const token = values['token-file'] ? readTokenFile(values['token-file']) : env.APPLIANCE_ADMIN_TOKEN?.trim();
  if (!token) throw new UsageError('give the token with --token-file FILE or the APPLIANCE_ADMIN_TOKEN variable');
  let ca: Buffer | undefined;
  if (values['ca-file']) {
    try {
      ca = readFileSync(values['ca-file']);
    } catch {
      throw new UsageError(`cannot read the CA file ${values['ca-file']}`);
    }
  }
  return { ...base, url: values.url, token, ca };
}

export async function dashboardCommand(argv: string[]): Promise<number> {
  const parsed = parseDashboardArgs(argv);
  if (parsed === 'help') {
    console.log(DASHBOARD_USAGE);
    return 0;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new UsageError('the dashboard needs an interactive terminal (for scripts: appliance-admin get SCREEN --json)');
  }
  let url = parsed.url;
  let token = parsed.token;
  let stopDemo: (() => Promise<void>) | undefined;
  if (parsed.demo) {
    const { startEmbeddedDemo } = await import('../server/demo/embedded.js');
    process.stderr.write('starting the demo appliance…\n');
    const demo = await startEmbeddedDemo();
    url = demo.url;
    token = demo.tokens[parsed.role];
    stopDemo = demo.stop;
  }
  // Ink draws nothing until exit when it believes it runs in CI; this is an interactive terminal.
  for (const v of ['CI', 'CONTINUOUS_INTEGRATION']) if (process.env[v] !== undefined) process.env[v] = '0';
  try {
    // Loaded only now: the React/Ink half of the bundle is not needed for --help or errors.
    const [{ ApiClient }, { createDashboard }, { runDashboard }, { screens }] = await Promise.all([
      import('../client/api-client.js'),
      import('../app/deps.js'),
      import('../app/run.js'),
      import('../../screens/index.js'),
    ]);
    let client;
    try {
      client = new ApiClient({ url: url!, token: token!, ca: parsed.ca });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const deps = createDashboard({ client, token: token!, screens, refreshMs: parsed.refreshMs, readOnly: parsed.readOnly, initialScreen: parsed.screen });
    token = undefined;
    return await runDashboard(deps);
  } finally {
    await stopDemo?.();
  }
}
