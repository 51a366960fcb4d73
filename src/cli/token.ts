import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { DB_FILE, openDatabase } from '../server/db/open.js';
import { holdsFile } from '../server/db/data-dir.js';
import { DEFAULT_TOKEN_TTL_MS, issueToken, listTokens, revokeToken, type HostActor } from '../server/tokens.js';
import { Role } from '../contract/common.js';
import { ROLES } from '../contract/roles.js';
import { sanitize } from '../text/sanitize.js';
import { UsageError } from '../config/usage-error.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

const SUBCOMMANDS = ['issue', 'list', 'revoke'];

export const TOKEN_USAGE = helpText(commandAt(['token']));

export async function tokenCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === '--help' || sub === '-h' || rest.includes('--help') || rest.includes('-h')) {
    console.log(TOKEN_USAGE);
    return sub ? 0 : 2;
  }
  if (!SUBCOMMANDS.includes(sub)) throw new UsageError(`unknown token command "${sanitize(sub, 60)}"\n${TOKEN_USAGE}`);
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      data: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      'ttl-days': { type: 'string' },
      'no-expiry': { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (!values.data) throw new UsageError(`--data DIR is required\n${TOKEN_USAGE}`);
  // Every argument is checked before the database is opened (which creates it where missing).
  let issue: { role: Role; name: string; ttl: number | null } | undefined;
  if (sub === 'issue') {
    const role = Role.safeParse(values.role);
    if (!role.success) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
    if (!values.name) throw new UsageError('--name NAME is required');
    if (values['no-expiry'] && values['ttl-days'] !== undefined)
      throw new UsageError('--ttl-days and --no-expiry contradict each other: give one');
    const ttl = values['no-expiry']
      ? null
      : values['ttl-days'] !== undefined
        ? Number(values['ttl-days']) * 86_400_000
        : DEFAULT_TOKEN_TTL_MS;
    if (ttl !== null && !(ttl > 0 && Number.isFinite(ttl)))
      throw new UsageError('--ttl-days must be a positive number');
    issue = { role: role.data, name: values.name, ttl };
  }
  const target = positionals[0];
  if (sub === 'revoke' && !target) throw new UsageError('token revoke needs a token id or name');
  // list and revoke read an existing appliance's database: a DIR without one is a mistyped --data
  if (sub !== 'issue' && !holdsFile(values.data, DB_FILE)) {
    throw new UsageError(`${values.data} holds no appliance database (${DB_FILE}); check --data`);
  }
  const db = openDatabase(values.data);
  try {
    if (issue) {
      const { token, row } = issueToken(db, issue.role, issue.name, issue.ttl, hostActor());
      const until = row.expires_at ? `valid until ${row.expires_at}` : 'never expires';
      process.stderr.write(
        `issued ${row.id} (${row.role}) for ${sanitize(row.name, 200)}, ${until}; it is shown only now\n`,
      );
      process.stdout.write(`${token}\n`);
      return 0;
    }
    if (sub === 'list') {
      const now = Date.now();
      for (const t of listTokens(db)) {
        const state = t.revoked_at
          ? `revoked ${t.revoked_at}`
          : t.expires_at && Date.parse(t.expires_at) <= now
            ? 'expired'
            : 'active';
        console.log([t.id, sanitize(t.name, 200), t.role, t.created_at, t.expires_at ?? 'never', state].join('\t'));
      }
      return 0;
    }
    const n = revokeToken(db, target!, hostActor());
    if (n === 0) throw new UsageError(`no active token ${sanitize(target, 200)}`);
    console.log(`revoked ${n} token(s)`);
    return 0;
  } finally {
    db.close();
  }
}

/** The OS user running the command, for the audit trail; a uid without a passwd entry is still someone. */
export function hostActor(): HostActor {
  try {
    return { subject: userInfo().username };
  } catch {
    return { subject: `uid ${process.getuid?.() ?? 'unknown'}` };
  }
}
