import { parseArgs } from 'node:util';
import { sanitize } from '../text/sanitize.js';
import type { AnyScreen } from '../dashboard/kit/screen-api.js';
import { clientFor, reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, resolveConnection } from './connection.js';
import { fetchedEntries, fetchScreen, type Fetched } from './screen-fetch.js';
import { UsageError } from '../config/usage-error.js';

export const GET_USAGE = `Usage: appliance-admin get SCREEN [--json] [--url URL] [--token-file FILE] [--ca-file FILE]

Prints what one dashboard screen shows (its first page, with the screen's default filters) and exits.
  --json             the data as JSON: a list screen prints its list's answer (e.g. {"data": [...],
                     "next_cursor": null, "has_more": false}); another screen with several
                     resources prints an object keyed by resource id ({"deployment": …, "plan": …});
                     the overview prints its triage lines ([{"key", "severity", "what", "reason",
                     "count", "window", "link"}, …]), worst first
                     without it: a plain table of the screen's columns (full values: use --json)
${CONNECTION_USAGE}

Exit status: 0 done, 1 the appliance refused or could not be reached, 2 bad usage or unknown screen.`;

export async function getCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...CONNECTION_OPTIONS,
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
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
  const connection = resolveConnection(values, env, GET_USAGE);
  const client = clientFor(connection);
  let fetched: Fetched[];
  try {
    fetched = await fetchScreen(client, screen);
  } catch (err) {
    return reportClientError(err, `get ${screen.name}`, connection.credential);
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
  const out = values.json
    ? `${JSON.stringify(screenJson(fetched, screen), null, 2)}\n`
    : (await import('./plain-table.js')).screenText(screen, fetched);
  await writeOut(out);
  return 0;
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
