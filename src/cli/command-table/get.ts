/** `get` and `watch`: the dashboard's data without its terminal UI, for scripts and monitors. */
import { APPLIANCE, CONFIG_FILE, CONNECTION, REFRESH } from './shared-options.js';
import type { CommandSpec } from './spec.js';

export const GET: CommandSpec = {
  name: 'get',
  summary: "one screen's data, as a table or JSON; get overview: the board for a monitor",
  usage: ['get SCREEN [--json] [--range RANGE] [--by GROUP] [--url URL] [--token-file FILE] [--ca-file FILE]'],
  brief: 'get SCREEN [--json]',
  description: `Prints what one dashboard screen shows (its first page, with the screen's default filters) and exits.`,
  arguments: [{ name: 'SCREEN', completes: 'screens' }],
  options: [
    {
      name: 'json',
      description: `the data as JSON: a list screen prints its list's answer (e.g. {"data": [...],
"next_cursor": null, "has_more": false}); another screen with several
resources prints an object keyed by resource id ({"deployment": …, "plan": …});
the overview prints its triage lines ([{"key", "severity", "what", "reason",
"count", "window", "link"}, …]), worst first
without it: a plain table of the screen's columns (full values: use --json)`,
    },
    {
      name: 'range',
      value: 'RANGE',
      completes: { choices: ['hour', 'day', 'week', 'month'] },
      description: `the time range the screen's H, D and W keys choose: usage (the last hour in
minute buckets, the last day or week in hours; default day) and the overview
(the window its key rejections are counted over; default hour); spend
takes day, week or month (the last 24 hours by hour, the last 7 or 30 days
by day; default week)`,
    },
    {
      name: 'by',
      value: 'GROUP',
      completes: { choices: ['model', 'workload', 'key'] },
      description: `spend: what its cost is summed by, model, workload or key (default model);
get usage --json and get spend --json give each cost with the currency`,
    },
    ...CONNECTION,
  ],
  exitStatus: `0 done, 1 the appliance refused or could not be reached, 2 bad usage or unknown screen.

get overview follows the monitoring-plugins convention (Nagios, Icinga, Zabbix, monit, cron), with
or without --json: exit 0 OK, 1 WARNING (a WARN line), 2 CRITICAL (a CRIT line), 3 UNKNOWN (no
problem read and a source not read, the appliance not reached or refusing the token, bad usage).
Without --json its first line says so, with performance data, and the board follows:
  APPLIANCE CRITICAL - 1 critical, 1 warning | crit=1;;;0 warn=1;;;0 unknown=0;;;0;14`,
  examples: [
    {
      command: 'get keys --json --url https://appliance:8443 --token-file ~/.aa-token',
      says: 'the gateway keys as JSON',
    },
    { command: 'get overview', says: 'the board, for a monitoring check' },
  ],
};

export const WATCH: CommandSpec = {
  name: 'watch',
  summary: 'a line per change of the overview board (no terminal UI)',
  usage: [
    'watch [--json] [--exec CMD] [--refresh 2s] [--range hour|day|week] [--url URL] [--token-file FILE] [--ca-file FILE]',
    'watch --appliance NAME [--json] [--exec CMD] [--refresh 2s] [--range hour|day|week]',
  ],
  brief: 'watch [--json] [--exec CMD]',
  description: `Reads the overview's board at the poll interval, with no terminal UI (a tmux pane, a systemd unit),
and prints one line per change: a CRIT, WARN or N/A (not read) line that appears, one that
clears, one whose severity changes. At start, what is on the board now is new. When the appliance
cannot be read it says so once and tries again with backoff (up to a minute); when it can, it says
how long it was blind and what changed since the last board it saw. Ctrl-C or SIGTERM stops it (exit 0).`,
  options: [
    {
      name: 'json',
      description: `one JSON object per line instead: {"event": "new"|"cleared"|"changed"|
"unreachable"|"reachable", "at", "appliance", "severity", "was", "key", "what",
"reason", "count", "window", "link", "while_blind"} (docs/dashboard.md, Being told)`,
    },
    {
      name: 'exec',
      value: 'CMD',
      description: `run CMD with the shell for each event, the event's JSON on its stdin and
APPLIANCE_ADMIN_EVENT, APPLIANCE_ADMIN_SEVERITY set (mail, a chat hook, a pager);
one at a time, in order; one that fails or outlasts --exec-timeout is said on
stderr and the watch goes on. The token is not in its environment.`,
    },
    { name: 'exec-timeout', value: 'LENGTH', description: 'how long CMD may run before it is stopped (default 30s)' },
    REFRESH,
    {
      name: 'range',
      value: 'RANGE',
      completes: { choices: ['hour', 'day', 'week'] },
      description: "the window key rejections are counted over, as the overview's H, D, W (default hour)",
    },
    ...CONNECTION,
    { ...APPLIANCE, description: 'an appliance named in the config file' },
    CONFIG_FILE,
  ],
  exitStatus: '0 stopped by a signal, 2 bad usage.',
  examples: [{ command: "watch --appliance lab --exec 'mail -s appliance ops@example.com'", says: 'mail each change' }],
};
