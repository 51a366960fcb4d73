import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type * as DashboardApp from './dashboard-bundle.js';
import { requireWithCodeCache } from './code-cache.js';
import { UsageError } from '../config/usage-error.js';

type App = typeof DashboardApp;

/** The dashboard app, and what keeps the code it compiled for the next start. */
export interface LoadedApp {
  app: App;
  saveCodeCache(): void;
}

/**
 * The dashboard app: in dist/, the CommonJS bundle through the code cache (src/cli/code-cache.ts);
 * run from source (tests, benchmarks), the module itself.
 */
async function loadApp(dir: string): Promise<LoadedApp> {
  const bundle = basename(dir) === 'dist' ? readdirSync(dir).find((f) => /^dashboard-\w+\.cjs$/.test(f)) : undefined;
  if (!bundle) return { app: await import('./dashboard-bundle.js'), saveCodeCache: () => undefined };
  const loaded = requireWithCodeCache<App>(join(dir, bundle));
  return { app: loaded.exports, saveCodeCache: () => loaded.save() };
}

/**
 * `appliance-admin [demo] …`, run from `dir` (dist/, or src/cli from source): everything but the
 * embedded demo server (ES modules, loaded only for demo) is in the dashboard's bundle, so that
 * nothing of it is compiled twice. The single file (src/cli/single-file.ts) gives its own `load`.
 */
export async function dashboardCommand(
  argv: string[],
  dir: string,
  load: () => Promise<LoadedApp> = () => loadApp(dir),
): Promise<number> {
  let next: string | undefined;
  let code = await dashboardOnce(argv, load, (name) => (next = name));
  // `:appliance NAME` ends the dashboard to start it again on that appliance
  while (next !== undefined && code === 0) {
    const name: string = next;
    next = undefined;
    const { app } = await load(); // loaded already: the same module
    code = await dashboardOnce(app.argvForAppliance(argv, name), load, (other) => (next = other));
  }
  // Quitting waits for no network work: the appliance's requests are abandoned by now, and
  // anything else still open (a sign-in being renewed at a slow identity provider) gets a moment,
  // not the rest of its timeout, before the process ends with the dashboard's code.
  setTimeout(() => process.exit(code), LINGER_MS).unref();
  return code;
}

/** `demo` as the first word, in a terminal, without --help: the dashboard will run on the demo. */
const startsDemo = (argv: string[]) =>
  argv[0] === 'demo' && !argv.includes('--help') && !argv.includes('-h') && process.stdin.isTTY && process.stdout.isTTY;

async function startDemo() {
  const { startEmbeddedDemo } = await import('./embedded-demo.js');
  process.stderr.write('starting the demo appliance…\n');
  return startEmbeddedDemo();
}

/** The app loaded, its flags read, and the appliance to connect to (the demo's, once it is ready). */
async function prepare(
  argv: string[],
  load: () => Promise<LoadedApp>,
  demoEarly: ReturnType<typeof startDemo> | undefined,
) {
  const { app, saveCodeCache } = await load();
  const parsed = await app.dashboardArgs(argv);
  if (parsed === 'help') {
    console.log(app.DASHBOARD_USAGE);
    return 'help' as const;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new UsageError(
      'the dashboard needs an interactive terminal (for scripts: appliance-admin get SCREEN --json)',
    );
  }
  if (!parsed.demo) return { app, saveCodeCache, parsed, url: parsed.url!, token: parsed.token!, stopDemo: undefined };
  const demo = await (demoEarly ?? startDemo());
  return { app, saveCodeCache, parsed, url: demo.url, token: demo.tokens[parsed.role], stopDemo: demo.stop };
}

/** How long the process may outlive the dashboard for work left open (an unreferenced timer: never longer than it must). */
const LINGER_MS = 1_000;

async function dashboardOnce(
  argv: string[],
  load: () => Promise<LoadedApp>,
  switchTo: (name: string) => void,
): Promise<number> {
  // Ink draws nothing until exit when it believes it runs in CI (is-in-ci reads CI and
  // CONTINUOUS_INTEGRATION once, when the bundle below loads); this is an interactive terminal.
  for (const v of ['CI', 'CONTINUOUS_INTEGRATION']) if (process.env[v] !== undefined) process.env[v] = '0';
  // `demo` first (npm start): the demo appliance starts while the dashboard's code loads, rather than after
  const demoEarly = startsDemo(argv) ? startDemo() : undefined;
  demoEarly?.catch(() => undefined); // its failure is reported where it is awaited, below
  let loaded: Awaited<ReturnType<typeof prepare>>;
  try {
    loaded = await prepare(argv, load, demoEarly);
  } catch (err) {
    await (await demoEarly?.catch(() => undefined))?.stop();
    throw err;
  }
  if (loaded === 'help') {
    await (await demoEarly?.catch(() => undefined))?.stop();
    return 0;
  }
  const { app, saveCodeCache, parsed, url, token, stopDemo } = loaded;
  let code: number;
  try {
    const session = parsed.session && { file: parsed.session.file, settings: parsed.session.info.settings };
    code = await app.startDashboard({
      url,
      token,
      ca: parsed.ca,
      ...(parsed.auditKey ? { auditKey: parsed.auditKey } : {}),
      // a fork the kept checkpoint's consistency proof finds is kept where the CLI's own checks keep theirs
      writeFork: app.writeForkEvidence,
      session,
      refreshMs: parsed.refreshMs,
      readOnly: parsed.readOnly,
      initialScreen: parsed.screen,
      display: parsed.display,
      screenReader: parsed.screenReader,
      theme: parsed.theme,
      settings: {
        appliances: parsed.appliances,
        switchAppliance: switchTo,
        saveColumns: async (screen, columns) =>
          (await import('../config/save.js')).saveScreenColumns(parsed.configFile, screen, columns),
        saveSort: async (screen, sort) =>
          (await import('../config/save.js')).saveScreenSort(parsed.configFile, screen, sort),
      },
      // The cache keeps the code compiled up to the first frame: a second after it, or at exit for
      // a shorter run (never for --help or an error: a cache is not made again while it works).
      onFirstFrame: () => {
        setTimeout(saveCodeCache, 1000).unref();
        process.once('exit', saveCodeCache);
      },
    });
  } finally {
    // A hang-up signals more than once (the terminal closing, then its session leader ending):
    // one that arrives after the dashboard's own handler is gone must not end this process before
    // the demo is stopped and its directory removed.
    const holdOn = () => undefined;
    process.on('SIGHUP', holdOn);
    try {
      await stopDemo?.();
    } finally {
      process.off('SIGHUP', holdOn);
    }
  }
  // The terminal hung up: once everything is cleaned up, end as a process does on SIGHUP. An
  // ordinary exit would have Node 20 restore the settings of a terminal that is gone, which fails
  // an assertion and aborts with a core dump (nodejs/node#51519, fixed in later Node versions).
  if (code === app.TERMINAL_HUNG_UP) {
    process.removeAllListeners('SIGHUP'); // signal-exit's (Ink's), whose exit hooks would only write to the gone terminal
    process.kill(process.pid, 'SIGHUP');
  }
  return code;
}
