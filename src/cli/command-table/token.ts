/** `token`: the admin API's bearer tokens, on the server's host. */
import { ROLES } from '../../contract/roles.js';
import { DATA_DIR } from './shared-options.js';
import type { CommandSpec } from './spec.js';

/** server/tokens.ts DEFAULT_TOKEN_TTL_MS in days (a test compares: the table does not load the server) */
export const DEFAULT_TOKEN_TTL_DAYS = 90;

export const TOKEN: CommandSpec = {
  name: 'token',
  summary: 'on-host admin tokens: issue, list, revoke',
  usage: [],
  brief: 'token issue|list|revoke --data DIR …',
  description: `A token expires after ${DEFAULT_TOKEN_TTL_DAYS} days unless --ttl-days N or --no-expiry says otherwise.
issue and revoke are audited (token.issue, token.revoke) with the user running the command as actor.`,
  shared: [DATA_DIR],
  subcommands: [
    {
      name: 'issue',
      summary: 'a new token, printed once on stdout',
      usage: [`token issue --data DIR --role ${ROLES.join('|')} --name NAME [--ttl-days N | --no-expiry]`],
      options: [
        {
          name: 'role',
          value: 'ROLE',
          completes: { choices: ROLES },
          description: `what the token may do: ${ROLES.join(', ')}`,
        },
        { name: 'name', value: 'NAME', description: 'who or what holds it (shown in the audit trail)' },
        { name: 'ttl-days', value: 'N', description: `days until it expires (default ${DEFAULT_TOKEN_TTL_DAYS})` },
        { name: 'no-expiry', description: 'the token never expires' },
      ],
    },
    { name: 'list', summary: 'the tokens, never a secret', usage: ['token list --data DIR'] },
    {
      name: 'revoke',
      summary: 'a token stops working at once',
      usage: ['token revoke --data DIR ID_OR_NAME'],
      arguments: [{ name: 'ID_OR_NAME', completes: 'none' }],
    },
  ],
  examples: [
    {
      command: 'token issue --data /var/lib/appliance-admin --role auditor --name "external audit" > auditor.token',
      says: "an auditor's token, into a file",
    },
  ],
};
