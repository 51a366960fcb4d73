/**
 * `appliance-admin watch`: the overview's board read at the poll interval with no terminal UI (a
 * tmux pane, a systemd unit), a line per change of it. The board is the overview screen's own
 * (its resources, its triage), read as `get overview` reads it; what changed is
 * src/dashboard/triage/changes.ts's. When the appliance cannot be read it says so once, tries
 * again with backoff, and once it can read it again says how long it was blind and what changed
 * since the last board it saw.
 */
import { parseArgs } from 'node:util';
import { readInterval } from '../config/interval.js';
import { UsageError } from '../config/usage-error.js';
import { parseApplianceUrl } from '../client/appliance-url.js';
import { boardChanges, type BoardMemory } from '../dashboard/triage/changes.js';
import type { TriageLine } from '../dashboard/triage/line.js';
import { boardStatus } from '../dashboard/triage/status.js';
import { backoffWait } from '../dashboard/state/backoff.js';
import { durationMs } from '../text/duration.js';
import { sanitize } from '../text/sanitize.js';
import { chooseAppliance } from './choose-appliance.js';
import { clientFor, describeFailure, isClientFailure } from './client-errors.js';
import { CONNECTION_OPTIONS, resolveConnection } from './connection.js';
import { readConfigFile } from './dashboard-config-file.js';
import { parseInterval } from './dashboard-flags.js';
import { fetchedEntries, fetchScreen, stateWithRange, type Fetched } from './screen-fetch.js';
import { eventJson, eventLabel, eventText, noteLine, type WatchEvent } from './watch-events.js';
import { ExecQueue } from './watch-exec.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

export const WATCH_USAGE = helpText(commandAt(['watch']));

const WATCH_OPTIONS = {
  ...CONNECTION_OPTIONS,
  appliance: { type: 'string' },
  config: { type: 'string' },
  refresh: { type: 'string' },
  json: { type: 'boolean', default: false },
  exec: { type: 'string' },
  'exec-timeout': { type: 'string' },
  range: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The longest wait between tries while the appliance cannot be read. */
const MAX_BACKOFF_MS = 60_000;
/** On a signal, how long a running --exec command may still take before it is stopped. */
const EXEC_GRACE_MS = 5_000;

export async function watchCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: WATCH_OPTIONS,
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    console.log(WATCH_USAGE);
    return 0;
  }
  if (positionals.length) throw new UsageError(`watch takes no ${sanitize(positionals[0], 60)}\n${WATCH_USAGE}`);
  const configFile = await readConfigFile(values.config, env);
  const { appliance, named, fileTokenFile } = chooseAppliance(values, configFile, env);
  const refreshMs =
    values.refresh !== undefined ? parseInterval(values.refresh) : configRefresh(configFile?.config.refresh);
  const execTimeoutMs = values['exec-timeout'] === undefined ? 30_000 : durationMs(values['exec-timeout']);
  if (!execTimeoutMs || execTimeoutMs < 100)
    throw new UsageError(`--exec-timeout must look like 30s or 2m, got ${sanitize(values['exec-timeout'], 40)}`);
  if (values.exec !== undefined && !values.exec.trim()) throw new UsageError('--exec needs a command');
  const connection = resolveConnection(
    {
      ...values,
      url: values.url ?? appliance?.url,
      'token-file': values['token-file'] ?? (named ? appliance?.['token-file'] : undefined),
      'ca-file': values['ca-file'] ?? appliance?.['ca-file'],
    },
    env,
    WATCH_USAGE,
    fileTokenFile,
  );
  const client = clientFor(connection);
  const shown = parseApplianceUrl(connection.url).display;
  const { screens } = await import('../../screens/index.js');
  const overview = screens.find((s) => s.name === 'overview')!;
  const state = stateWithRange(overview, values.range);

  const out = (line: string) => process.stdout.write(`${line}\n`);
  const note = (line: string) => process.stderr.write(`${noteLine(line)}\n`);
  const exec = values.exec === undefined ? null : new ExecQueue(values.exec, execTimeoutMs, note);
  const report = (e: WatchEvent) => {
    const json = eventJson(e, shown);
    out(values.json ? JSON.stringify(json) : eventText(e));
    exec?.push(JSON.stringify(json), eventLabel(e), {
      APPLIANCE_ADMIN_EVENT: String(json.event),
      APPLIANCE_ADMIN_SEVERITY: e.type === 'change' ? e.change.now : '',
    });
  };

  const stop = new AbortController();
  const onSignal = () => {
    stop.abort();
    void client.abandon();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // a reader that went away (| head, a closed pane) ends the watch, as a signal does
  process.stdout.on('error', onSignal);
  process.stderr.write(
    `${noteLine(`watching ${shown} every ${refreshMs % 1000 ? `${refreshMs} ms` : `${refreshMs / 1000} s`} (Ctrl-C stops)`)}\n`,
  );

  let memory: BoardMemory | null = null;
  let lastRead: number | null = null;
  let blind: { from: number; failures: number } | null = null;
  const startedAt = Date.now();
  /** the answers of this board, for a resource polled only every `everyMs` */
  const kept = new Map<string, { fetched: Fetched; at: number }>();
  const reuse = (r: Fetched['request']) => {
    const k = kept.get(r.id);
    return r.everyMs && k && !k.fetched.error && Date.now() - k.at < r.everyMs - refreshMs / 2 ? k.fetched : undefined;
  };
  try {
    while (!stop.signal.aborted) {
      let wait = refreshMs;
      const read = await readBoard(client, overview, reuse, state);
      if (stop.signal.aborted) break;
      if (read.ok) {
        const now = Date.now();
        for (const f of read.fetched)
          if (!kept.has(f.request.id) || kept.get(f.request.id)!.fetched !== f)
            kept.set(f.request.id, { fetched: f, at: now });
        const { changes, memory: next } = boardChanges(memory, read.lines);
        if (blind)
          report({
            type: 'reachable',
            at: now,
            blindFrom: blind.from,
            changes: changes.length,
            firstRead: memory === null,
          });
        for (const change of changes)
          report({ type: 'change', at: now, change, whileBlind: blind !== null && memory !== null });
        if (memory === null) note(`first board read: ${boardWords(read.lines)}`);
        memory = next;
        lastRead = now;
        blind = null;
      } else {
        kept.clear(); // once it can be read again, everything is read afresh
        if (!blind) {
          blind = { from: lastRead ?? startedAt, failures: 0 };
          report({ type: 'unreachable', at: Date.now(), reason: read.why, lastRead });
        }
        blind.failures++;
        wait = backoffWait(blind.failures, refreshMs, MAX_BACKOFF_MS);
      }
      await sleep(wait, stop.signal);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.stdout.off('error', onSignal);
    await exec?.close(EXEC_GRACE_MS);
    await client.abandon();
  }
  process.stderr.write(`${noteLine('stopped')}\n`);
  return 0;
}

type BoardRead = { ok: true; lines: TriageLine[]; fetched: Fetched[] } | { ok: false; why: string };

/**
 * The board now, or why it could not be read: the appliance not reached, the token refused, or
 * not one of its resources answered (a board of "not read" lines is no board).
 */
async function readBoard(
  client: ReturnType<typeof clientFor>,
  overview: Awaited<typeof import('../../screens/index.js')>['screens'][number],
  reuse: (r: Fetched['request']) => Fetched | undefined,
  state: Parameters<typeof fetchScreen>[3],
): Promise<BoardRead> {
  let fetched: Fetched[];
  try {
    fetched = await fetchScreen(client, overview, reuse, state);
  } catch (err) {
    if (!isClientFailure(err)) throw err;
    return { ok: false, why: describeFailure(err) };
  }
  const firstError = fetched.find((f) => f.error)?.error;
  if (fetched.every((f) => f.error)) return { ok: false, why: firstError ? describeFailure(firstError) : 'no answer' };
  return { ok: true, lines: overview.list!.rowsFrom!(fetchedEntries(fetched)) as TriageLine[], fetched };
}

/** `1 critical, 2 warnings, 0 not read` */
function boardWords(lines: TriageLine[]): string {
  const s = boardStatus(lines);
  return `${s.state}: ${s.crit} critical, ${s.warn} warning${s.warn === 1 ? '' : 's'}, ${s.unknown} source${s.unknown === 1 ? '' : 's'} not read`;
}

/** The config file's refresh (checked when it was read), else 2 s, the dashboard's. */
function configRefresh(refresh: string | number | undefined): number {
  const ms = readInterval(refresh ?? 2, 'refresh');
  return typeof ms === 'number' ? ms : 2000;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
