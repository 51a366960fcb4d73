/** `evidence`: an auditor's evidence pack, and checking one. */
import { CONNECTION } from './shared-options.js';
import type { CommandSpec } from './spec.js';

export const EVIDENCE: CommandSpec = {
  name: 'evidence',
  summary: "an auditor's evidence pack, sealed by the appliance; evidence verify checks one",
  usage: ['evidence --since 30d [-o DIR] [--url URL] [--token-file FILE] [--ca-file FILE]'],
  brief: 'evidence --since 30d -o DIR | evidence verify DIR',
  description: `Gathers an auditor's evidence pack into DIR (default evidence-<time>): the audit trail for the
range as JSON Lines and CSV with their signed statements and the public keys, the agent journal,
the gateway key inventory (never a secret), the role matrix, settings, deployment, install plan,
models, routing, budgets, a manifest.json of every file's sha256 and size, sealed by the appliance
in its trail (seal.json), and a README.txt on how to check it. Making a pack is audited (its
exports are marked purpose=evidence, its seal is an audit.seal entry); an auditor's token is enough.`,
  options: [
    {
      name: 'since',
      value: 'WHEN',
      description: "the range's start: a duration before now (30d, 12h) or an RFC 3339 time",
    },
    {
      name: 'output',
      short: 'o',
      value: 'DIR',
      completes: 'dirs',
      description: `where to write; must not exist or be an empty folder. The pack is made in
DIR.partial-… beside it and renamed to DIR when complete: stopped or failed,
only that is removed`,
    },
    ...CONNECTION,
  ],
  subcommands: [
    {
      name: 'verify',
      summary: 'check an evidence pack offline',
      usage: ['evidence verify DIR [--key PEM_FILE]'],
      description: 'Checks the seal, every file against the manifest, and the audit chain (see audit verify).',
      arguments: [{ name: 'DIR', completes: 'dirs' }],
      options: [
        {
          name: 'key',
          value: 'PEM_FILE',
          completes: 'files',
          description: "the appliance's public key(s), obtained out of band: pinned",
        },
      ],
    },
  ],
  exitStatus: `0 done (verify: verified with the pinned key), 1 the appliance refused, the pack could
not be written, or (verify) broken or incomplete, 2 bad usage, 3 (verify) could not check,
4 (verify) verified with the pack's own keys (not pinned), 130/143 stopped by SIGINT/SIGTERM.`,
  examples: [
    { command: 'evidence --since 90d -o q3-evidence', says: 'the last 90 days, into q3-evidence/' },
    { command: 'evidence verify q3-evidence --key appliance.pem', says: 'check it, offline' },
  ],
};
