import { parseArgs } from 'node:util';
import { sanitize } from '../text/sanitize.js';
import type { AnyScreen } from '../dashboard/kit/screen-api.js';
import { clientFor, describeFailure, reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, resolveConnection } from './connection.js';
import { fetchedEntries, fetchScreen, stateWithGrouping, stateWithRange, type Fetched } from './screen-fetch.js';
import { UsageError } from '../config/usage-error.js';
import { boardStatus, EXIT_CODE, statusLine, unreadableLine } from '../dashboard/triage/status.js';
import type { TriageLine } from '../dashboard/triage/line.js';
import { printOut, terminalText } from './print.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

export const GET_USAGE = helpText(commandAt(['get']));

/** `get overview`, from the words of the command line (parsed loosely: a bad option is still its failure). */
function namesOverview(argv: string[]): boolean {
  try {
    const { positionals } = parseArgs({ args: argv, options: GET_OPTIONS, allowPositionals: true, strict: false });
    return positionals[0] === 'overview';
  } catch {
    return false;
  }
}

const GET_OPTIONS = {
  ...CONNECTION_OPTIONS,
  json: { type: 'boolean', default: false },
  range: { type: 'string' },
  by: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * `get overview` answers a monitor in its own terms whatever goes wrong: a failure that would exit
 * 1 or 2 (which a monitor reads as WARNING or CRITICAL) is UNKNOWN, 3, and says why on stdout too.
 */
export async function getCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (!namesOverview(argv)) return get(argv, env);
  const json = argv.includes('--json');
  try {
    return await get(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError) && !(err as NodeJS.ErrnoException)?.code?.startsWith?.('ERR_PARSE_ARGS'))
      throw err;
    process.stderr.write(`appliance-admin: ${terminalText((err as Error).message)}\n`);
    if (!json) printOut(`APPLIANCE UNKNOWN - bad usage: ${(err as Error).message.split('\n')[0]}`);
    return EXIT_CODE.UNKNOWN;
  }
}

async function get(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: GET_OPTIONS, allowPositionals: true, strict: true });
  if (values.help) {
    console.log(GET_USAGE);
    return 0;
  }
  const { screens } = await import('../../screens/index.js');
  const names = screens.map((s) => s.name).join(', ');
  if (positionals.length !== 1) throw new UsageError(`name one screen: ${names}\n${GET_USAGE}`);
  const screen = screens.find((s) => s.name === positionals[0]);
  if (!screen) throw new UsageError(`unknown screen "${sanitize(positionals[0], 60)}"; the screens are: ${names}`);
  if (screen.list?.fromActionLog)
    throw new UsageError('the log screen lists what one dashboard sent since it started: it has nothing to get');
  const state = stateWithGrouping(screen, stateWithRange(screen, values.range), values.by);
  const connection = resolveConnection(values, env, GET_USAGE);
  const client = clientFor(connection);
  let fetched: Fetched[];
  try {
    fetched = await fetchScreen(client, screen, undefined, state);
  } catch (err) {
    const code = reportClientError(err, `get ${screen.name}`, connection.credential);
    if (screen.name !== 'overview') return code;
    if (!values.json) printOut(unreadableLine(describeFailure(err)));
    return EXIT_CODE.UNKNOWN;
  } finally {
    await client.close();
  }
  for (const f of fetched) {
    if (f.issues.length) {
      const first = f.issues[0];
      // the path names the answer's own keys, as the appliance sent them
      process.stderr.write(
        `appliance-admin: note: the answer for ${f.request.id} does not fit the contract (${f.issues.length} issue${f.issues.length > 1 ? 's' : ''}), first ${sanitize(`${first.path}: ${first.message}`, 500)}\n`,
      );
    }
  }
  const json = screenJson(fetched, screen);
  // the overview's state, from the lines it prints (screenJson: the triage lines)
  const status = screen.name === 'overview' ? boardStatus(json as TriageLine[]) : null;
  const head = status && !values.json ? `${sanitize(statusLine(status, fetched.length), 2000)}\n` : '';
  const out = values.json
    ? `${JSON.stringify(json, null, 2)}\n`
    : head + (await import('./plain-table.js')).screenText(screen, fetched);
  await writeOut(out);
  return status ? EXIT_CODE[status.state] : 0;
}

/** Rows made from all resources (the overview's lines); a list: its own resource's data; else one resource: its data; several: an object keyed by resource id. */
function screenJson(fetched: Fetched[], screen?: AnyScreen): unknown {
  const list = screen?.list;
  if (list?.rowsFrom) return list.rowsFrom(fetchedEntries(fetched));
  // a list's own resource, whatever else it joins into its rows: scripts keep the list's shape
  if (list) return fetched.find((f) => f.request.id === (list.resource ?? fetched[0]?.request.id))?.data;
  if (fetched.length === 1) return fetched[0].data;
  return Object.fromEntries(fetched.map((f) => [f.request.id, f.data]));
}

/** Writes and waits until it is flushed, so a pipe gets everything before the exit. */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.once('error', () => undefined); // a reader that went away (| head) is not a failure
    process.stdout.write(text, (err) =>
      err && (err as NodeJS.ErrnoException).code !== 'EPIPE' ? reject(err) : resolve(),
    );
  });
}
