import { parseArgs } from 'node:util';
import { openDatabase } from '../server/db/open.js';
import { issueToken, listTokens, revokeToken } from '../server/tokens.js';
import { Role } from '../contract/common.js';
import { UsageError } from './usage-error.js';

export const TOKEN_USAGE = `Usage: appliance-admin token issue --data DIR --role it_admin|app_owner|auditor --name NAME [--ttl-days N]
       appliance-admin token list --data DIR
       appliance-admin token revoke --data DIR ID_OR_NAME`;

export async function tokenCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === '--help' || sub === '-h' || rest.includes('--help') || rest.includes('-h')) {
    console.log(TOKEN_USAGE);
    return sub ? 0 : 2;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      data: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      'ttl-days': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (!values.data) throw new UsageError(`--data DIR is required\n${TOKEN_USAGE}`);
  const db = openDatabase(values.data);
  try {
    if (sub === 'issue') {
      const role = Role.safeParse(values.role);
      if (!role.success) throw new UsageError(`--role must be one of it_admin, app_owner, auditor`);
      if (!values.name) throw new UsageError('--name NAME is required');
      const ttl = values['ttl-days'] ? Number(values['ttl-days']) * 86_400_000 : undefined;
      if (ttl !== undefined && !(ttl > 0)) throw new UsageError('--ttl-days must be a positive number');
      const { token, row } = issueToken(db, role.data, values.name, ttl);
      process.stderr.write(`issued ${row.id} (${row.role}) for ${row.name}; it is shown only now\n`);
      process.stdout.write(`${token}\n`);
      return 0;
    }
    if (sub === 'list') {
      for (const t of listTokens(db)) {
        console.log([t.id, t.name, t.role, t.created_at, t.expires_at ?? '-', t.revoked_at ? `revoked ${t.revoked_at}` : 'active'].join('\t'));
      }
      return 0;
    }
    if (sub === 'revoke') {
      const target = positionals[0];
      if (!target) throw new UsageError('token revoke needs a token id or name');
      const n = revokeToken(db, target);
      if (n === 0) throw new UsageError(`no active token ${target}`);
      console.log(`revoked ${n} token(s)`);
      return 0;
    }
    throw new UsageError(TOKEN_USAGE);
  } finally {
    db.close();
  }
}
