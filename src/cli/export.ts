import { createReadStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { routes } from '../contract/routes.js';
import { bytes } from '../dashboard/kit/format.js';
import { countCsvRecords, countJsonlRecords } from '../text/record-count.js';
import { sanitize } from '../text/sanitize.js';
import { parseTimeInput } from '../text/time-input.js';
import { clientFor, reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, resolveConnection } from './connection.js';
import { UsageError } from '../config/usage-error.js';
import { writeCheckpointFile } from './audit-checkpoint-file.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

export const EXPORT_USAGE = helpText(commandAt(['export']));

const KINDS = {
  audit: { route: 'exportAudit', filters: ['actor', 'action', 'outcome', 'request-id'] },
  journal: { route: 'exportJournal', filters: ['agent', 'channel', 'run-id', 'status'] },
} as const;
type Kind = keyof typeof KINDS;
const ALL_FILTERS = [...new Set(Object.values(KINDS).flatMap((k) => k.filters as readonly string[]))];

/** Query parameter -> the option a user typed, for error messages. */
const OPTION_OF: Record<string, string> = {
  start_time: '--since',
  end_time: '--until',
  run_id: '--run-id',
  request_id: '--request-id',
  format: '--format',
};

/** `7d` (that long before now) or an RFC 3339 time / date, as an RFC 3339 UTC string. */
export function parseWhen(text: string, option: string, now = Date.now()): string {
  const when = parseTimeInput(text, now);
  if (when === null)
    throw new UsageError(
      `${option} must be a duration like 7d, 12h, 30m or an RFC 3339 time like 2026-11-21T09:30:00Z, got ${sanitize(text, 60)}`,
    );
  return when;
}

export interface ExportPlan {
  kind: Kind;
  query: Record<string, unknown>;
  dest: string;
  force: boolean;
}

export function parseExportArgs(
  argv: string[],
  now = Date.now(),
): { plan: ExportPlan; values: Record<string, unknown> } | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...CONNECTION_OPTIONS,
      output: { type: 'string', short: 'o' },
      format: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
      ...Object.fromEntries(ALL_FILTERS.map((f) => [f, { type: 'string' as const }])),
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return 'help';
  const [kindName, ...extra] = positionals;
  if (!kindName || extra.length || !(kindName in KINDS))
    throw new UsageError(`export what: audit or journal?\n${EXPORT_USAGE}`);
  const kind = kindName as Kind;
  const allowed = KINDS[kind].filters as readonly string[];
  const given = values as Record<string, unknown>;
  const misplaced = ALL_FILTERS.filter((f) => given[f] !== undefined && !allowed.includes(f));
  if (misplaced.length)
    throw new UsageError(
      `${misplaced.map((f) => `--${f}`).join(', ')} does not filter the ${kind} export; its filters are ${allowed.map((f) => `--${f}`).join(', ')}`,
    );
  if (!values.output) throw new UsageError(`-o FILE is required\n${EXPORT_USAGE}`);
  const query: Record<string, unknown> = { format: values.format ?? 'csv' };
  if (values.since !== undefined) query.start_time = parseWhen(values.since, '--since', now);
  if (values.until !== undefined) query.end_time = parseWhen(values.until, '--until', now);
  for (const f of allowed) if (given[f] !== undefined) query[f.replace(/-/g, '_')] = given[f];
  // The contract's own query schema decides what the server would accept.
  const checked = routes[KINDS[kind].route].query.safeParse(query);
  if (!checked.success) {
    const first = checked.error.issues[0];
    const name = String(first.path[0] ?? '');
    const option = OPTION_OF[name] ?? `--${name.replace(/_/g, '-')}`;
    const what =
      first.message === 'end_time must be after start_time'
        ? '--until must be after --since'
        : `${option}: ${first.message}`;
    throw new UsageError(what);
  }
  return { plan: { kind, query, dest: resolve(values.output), force: values.force }, values: given };
}

export async function exportCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = parseExportArgs(argv);
  if (parsed === 'help') {
    console.log(EXPORT_USAGE);
    return 0;
  }
  const { plan, values } = parsed;
  const connection = resolveConnection(values as Parameters<typeof resolveConnection>[0], env, EXPORT_USAGE);
  // Before FILE is claimed: a malformed --url must not leave an empty FILE behind.
  const client = clientFor(connection);
  let claimed: boolean;
  try {
    claimed = await claim(plan.dest, plan.force);
  } catch (err) {
    await client.close();
    if (err instanceof UsageError) throw err;
    process.stderr.write(
      `appliance-admin: cannot write ${plan.dest}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
    );
    return 1;
  }
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const showProgress = Boolean(process.stderr.isTTY);
  try {
    const result = await client.download(
      KINDS[plan.kind].route,
      plan.query,
      plan.dest,
      showProgress ? (p) => process.stderr.write(`\r\x1b[Kexporting ${plan.kind}… ${bytes(p.bytes)}`) : undefined,
      controller.signal,
    );
    if (showProgress) process.stderr.write('\r\x1b[K');
    const rows =
      plan.query.format === 'jsonl'
        ? await countJsonlRecords(createReadStream(plan.dest))
        : await countCsvRecords(createReadStream(plan.dest));
    const checkpoint = plan.kind === 'audit' ? [await writeCheckpointFile(plan.dest, result)] : [];
    process.stderr.write(
      [
        `exported ${rows.toLocaleString('en-US')} ${plan.kind} row${rows === 1 ? '' : 's'} (${plan.query.format}, ${result.bytes.toLocaleString('en-US')} bytes)`,
        // labels as wide as the checkpoint's (audit-checkpoint-file.ts), so that every value starts in one column
        `  file       ${result.path}`,
        `  sha256     ${result.sha256}`,
        ...(result.requestId ? [`  request    ${result.requestId}`] : []),
        ...checkpoint,
      ].join('\n') + '\n',
    );
    return 0;
  } catch (err) {
    if (showProgress) process.stderr.write('\r\x1b[K');
    if (claimed) await rm(plan.dest, { force: true });
    if (controller.signal.aborted) {
      process.stderr.write('appliance-admin: export interrupted; nothing was written\n');
      return 130;
    }
    const e = err as NodeJS.ErrnoException;
    if (e?.syscall && e.code) {
      process.stderr.write(`appliance-admin: cannot write ${plan.dest}: ${e.code}\n`);
      return 1;
    }
    return reportClientError(err, `export ${plan.kind}`, connection.credential);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await client.close();
  }
}

/**
 * Without --force, creates FILE exclusively (empty, 0600) so nothing else can take the name while
 * the export streams into FILE.part; the finished download is renamed over it. Returns whether it
 * created the file (and must remove it on failure).
 */
async function claim(dest: string, force: boolean): Promise<boolean> {
  if (force) return false;
  try {
    const fh = await open(dest, 'wx', 0o600);
    await fh.close();
    return true;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EEXIST')
      throw new UsageError(`${dest} already exists; choose another file or add --force to replace it`);
    throw err;
  }
}
