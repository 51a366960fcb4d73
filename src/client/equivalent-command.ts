import type { Exchange } from './exchange-log.js';

/** Field names whose values are never shown, at any depth of a request body. */
const SECRET_NAME = /secret|token|password/i;

/** `'it'\''s'`: one shell word, whatever it holds. */
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The body without its secret fields: a copy, the request's own object is not touched. */
function withoutSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutSecrets);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>)
      .filter(([k]) => !SECRET_NAME.test(k))
      .map(([k, x]) => [k, withoutSecrets(x)]),
  );
}

/** Query parameter -> `appliance-admin export` option, per kind (src/cli/export.ts). */
const EXPORT_OPTIONS: Record<string, { kind: string; options: Record<string, string> }> = {
  exportAudit: {
    kind: 'audit',
    options: {
      start_time: '--since',
      end_time: '--until',
      actor: '--actor',
      action: '--action',
      outcome: '--outcome',
      request_id: '--request-id',
    },
  },
  exportJournal: {
    kind: 'journal',
    options: {
      start_time: '--since',
      end_time: '--until',
      agent: '--agent',
      channel: '--channel',
      run_id: '--run-id',
      status: '--status',
    },
  },
};

/** An export as `appliance-admin export …`, when the CLI has an option for each of its filters. */
function cliExport(e: Exchange): string | null {
  const spec = EXPORT_OPTIONS[e.route];
  if (!spec || e.download?.dest === undefined) return null;
  const args = ['appliance-admin', 'export', spec.kind, '-o', quote(e.download.dest)];
  for (const [name, value] of Object.entries(e.download.query)) {
    if (value === undefined || value === null || value === '') continue;
    const option = name === 'format' ? '--format' : spec.options[name];
    if (!option) return null;
    args.push(option, quote(String(value)));
  }
  // FILE is for the operator to fill in: without a credential the command fails ("no credential")
  args.push('--url', quote(e.appliance), '--token-file', TOKEN_FILE_PLACEHOLDER);
  return args.join(' ');
}

const TOKEN_FILE_PLACEHOLDER = 'FILE';

/** What the operator must fill in before running the command: it never holds the credential. */
export const credentialNote = (command: string): string =>
  command.startsWith('appliance-admin ')
    ? `replace ${TOKEN_FILE_PLACEHOLDER} with the path of your token file (the command holds no token)`
    : 'set the variable TOKEN to your token first (the command holds none)';

/**
 * The request as a command an operator can run or keep: the CLI's where it has the route, else
 * curl. The token is `$TOKEN` (the CLI's: `--token-file FILE`), and secret fields of the body are
 * left out (a created key's secret is in the answer, never the request; this makes sure).
 */
export function equivalentCommand(e: Exchange): string {
  const cli = cliExport(e);
  if (cli) return cli;
  const args = ['curl'];
  if (e.method !== 'GET') args.push('-X', e.method);
  // double quotes: the shell puts the operator's token in, the command itself never holds it
  args.push('-H', '"Authorization: Bearer $TOKEN"');
  if (e.body !== undefined) args.push('-H', quote('Content-Type: application/json'));
  if (e.download?.dest !== undefined) args.push('-o', quote(e.download.dest));
  args.push(quote(e.url));
  if (e.body !== undefined) args.push('-d', quote(JSON.stringify(withoutSecrets(e.body))));
  return args.join(' ');
}
