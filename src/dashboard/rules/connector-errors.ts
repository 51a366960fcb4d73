/**
 * A connector's sync error, by what the appliance's ingestion says (src/server/ingest/): a code
 * per known failure, what to do about it, and the section of docs/connector-errors.md that says
 * more. The appliance words its errors (the contract's `last_sync.error` and a job's `error` are
 * text), so each is recognised by its words; an error not listed here is shown as it is.
 */
export interface ConnectorErrorHint {
  /** the section's name in docs/connector-errors.md */
  code: string;
  /** what to do, in a line */
  hint: string;
}

export const CONNECTOR_ERRORS_DOC = 'docs/connector-errors.md';

const KNOWN: { code: string; matches: RegExp; hint: string }[] = [
  {
    code: 'no-driver',
    matches: /^no [\w-]+ driver is installed/,
    hint: 'this host has no driver for the source kind: ingestion cannot succeed until one is installed on the appliance, or the connector is disabled in its configuration',
  },
  {
    code: 'ENOENT',
    matches: /\(ENOENT\)/,
    hint: "the source's path is not on the appliance host: mount or restore it, or correct the path in the appliance configuration; then i ingests again",
  },
  {
    code: 'EACCES',
    matches: /\((EACCES|EPERM)\)/,
    hint: "the appliance's service user may not read the source: grant it read access on the host; then i ingests again",
  },
  {
    code: 'ENOTDIR',
    matches: /is not a directory( \(ENOTDIR\))?$/,
    hint: 'a directory source points at a file (or through one): correct the path in the appliance configuration',
  },
  {
    code: 'not-sqlite',
    matches: /^cannot (open|read) .* as SQLite|is not a file$/,
    hint: 'the sqlite source is not a readable SQLite database: check the file on the host (copied whole? encrypted?) or its path',
  },
  {
    code: 'unreadable',
    matches: /^cannot read .+: E[A-Z]+$/,
    hint: "the host could not read the source (the code is the operating system's): check the disk and the mount on the host",
  },
  {
    code: 'no-path',
    matches: /source has no path configured$/,
    hint: 'the source has no path in the appliance configuration: add one, restart the appliance service',
  },
  {
    code: 'not-configured',
    matches: /^connector or source is no longer configured$/,
    hint: 'the configuration changed while the job waited: nothing to fix; ingest a source that is configured',
  },
  {
    code: 'interrupted',
    matches: /^interrupted by server shutdown$/,
    hint: 'the appliance service stopped during the job: i ingests again',
  },
  {
    code: 'unexpected',
    matches: /^unexpected error: /,
    hint: "the appliance failed in a way it does not name: its service log has the job's id and the cause",
  },
];

/** The hint for a sync error, or null for one the appliance does not produce (shown as it is). */
export function connectorErrorHint(error: string | null | undefined): ConnectorErrorHint | null {
  if (!error) return null;
  const known = KNOWN.find((k) => k.matches.test(error.trim()));
  return known ? { code: known.code, hint: known.hint } : null;
}

/** Every known code, in the order docs/connector-errors.md lists them (its test checks each has a section). */
export const CONNECTOR_ERROR_CODES = KNOWN.map((k) => k.code);
