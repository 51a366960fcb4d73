/** `export`: the audit trail or the agent journal into a file, streamed. */
import { CONNECTION } from './shared-options.js';
import type { CommandSpec } from './spec.js';

export const EXPORT: CommandSpec = {
  name: 'export',
  summary: 'the audit trail or the agent journal into a file (CSV or JSON Lines)',
  usage: [
    'export audit|journal -o FILE [--format csv|jsonl] [--since 7d|RFC3339] [--until …]',
    '       [filters] [--force] [--url URL] [--token-file FILE] [--ca-file FILE]',
  ],
  brief: 'export audit|journal --format csv|jsonl [--since 7d] -o FILE',
  description: "Streams the appliance's export to FILE and prints a summary (rows, bytes, path, sha256) on stderr.",
  shared: [
    {
      name: 'output',
      short: 'o',
      value: 'FILE',
      completes: 'files',
      description: 'where to write; an existing file is kept unless --force',
    },
    {
      name: 'format',
      value: 'FMT',
      completes: { choices: ['csv', 'jsonl'] },
      description: 'csv (RFC 4180, with a header row; the default) or jsonl (one JSON object a line)',
    },
    {
      name: 'since',
      value: 'WHEN',
      description: `from this time on (inclusive): a duration before now (90s, 30m, 12h, 7d, 2w)
or an RFC 3339 time (2026-11-21T09:30:00Z, 2026-11-21T10:30:00+01:00, 2026-11-21;
no zone: UTC)`,
    },
    { name: 'until', value: 'WHEN', description: 'up to this time (exclusive), same forms' },
    { name: 'force', description: 'replace FILE if it exists' },
    ...CONNECTION,
  ],
  subcommands: [
    {
      name: 'audit',
      summary: 'the audit trail (audit verify proves it complete)',
      usage: [],
      options: [
        { name: 'actor', value: 'SUBJECT', description: 'entries by this actor' },
        { name: 'action', value: 'ACTION', description: 'exact, or a prefix: gateway.key.*' },
        {
          name: 'outcome',
          value: 'OUTCOME',
          completes: { choices: ['success', 'denied', 'failed'] },
          description: 'success, denied or failed',
        },
        { name: 'request-id', value: 'ID', description: 'what one request did' },
      ],
    },
    {
      name: 'journal',
      summary: "the agent journal (the agents' runs)",
      usage: [],
      options: [
        { name: 'agent', value: 'NAME', description: "one agent's runs" },
        { name: 'channel', value: 'ID', description: "one channel's runs" },
        { name: 'run-id', value: 'ID', description: 'one run' },
        {
          name: 'status',
          value: 'STATUS',
          completes: { choices: ['running', 'succeeded', 'failed', 'cancelled'] },
          description: 'running, succeeded, failed or cancelled',
        },
      ],
    },
  ],
  exitStatus: `0 written, 1 the appliance refused, could not be reached or FILE could not be written,
2 bad usage or FILE exists.`,
  examples: [{ command: 'export audit --since 7d --format jsonl -o audit.jsonl', says: "the last week's audit trail" }],
};
