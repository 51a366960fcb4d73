import { readFileSync, statSync } from 'node:fs';
import { UsageError } from './usage-error.js';
import { plainHttpRefusal } from '../client/transport-policy.js';

/**
 * How every client command (the dashboard, `get`, `export`) finds the appliance: the same
 * options, the same token rules, the same words when something is missing.
 */
export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  'ca-file': { type: 'string' },
  'insecure-http': { type: 'boolean', default: false },
} as const;

export const CONNECTION_USAGE = `  --url URL          the appliance (http(s)://host:port, with or without /v1/admin)
  --token-file FILE  a file holding the bearer token, mode 0600 (or set APPLIANCE_ADMIN_TOKEN)
  --ca-file FILE     PEM CA certificate to trust for the appliance's TLS
  --insecure-http    allow plain http:// to a host other than this machine (the token travels unencrypted)`;

export interface Connection {
  url: string;
  token: string;
  ca?: Buffer;
  /** --insecure-http was given */
  insecureHttp?: boolean;
}

/** Reads a token file, refusing one that group or others can read. */
export function readTokenFile(file: string): string {
  let st;
  try {
    st = statSync(file);
  } catch {
    throw new UsageError(`cannot read the token file ${file}`);
  }
  if (!st.isFile()) throw new UsageError(`the token file ${file} is not a regular file`);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
    throw new UsageError(`the token file ${file} is readable by group or others (mode ${mode}); run: chmod 600 ${file}`);
  }
  const token = readFileSync(file, 'utf8').trim();
  if (!token) throw new UsageError(`the token file ${file} is empty`);
  if (/\s/.test(token)) throw new UsageError(`the token file ${file} must hold one token on one line`);
  return token;
}

/** URL, token (file or APPLIANCE_ADMIN_TOKEN) and CA from parsed CONNECTION_OPTIONS values. */
export function resolveConnection(
  values: { url?: string; 'token-file'?: string; 'ca-file'?: string; 'insecure-http'?: boolean },
  env: NodeJS.ProcessEnv,
  usage: string,
): Connection {
  if (!values.url) throw new UsageError(`--url URL is required\n${usage}`);
  // Checked before the token is read: the refusal does not depend on it, and nothing is sent.
  const refusal = plainHttpRefusal(values.url, Boolean(values['insecure-http']));
  if (refusal) throw new UsageError(refusal);
  const token = values['token-file'] ? readTokenFile(values['token-file']) : env.APPLIANCE_ADMIN_TOKEN?.trim();
  if (!token) throw new UsageError('give the token with --token-file FILE or the APPLIANCE_ADMIN_TOKEN variable');
  let ca: Buffer | undefined;
  if (values['ca-file']) {
    try {
      ca = readFileSync(values['ca-file']);
    } catch {
      throw new UsageError(`cannot read the CA file ${values['ca-file']}`);
    }
  }
  return { url: values.url, token, ca, insecureHttp: Boolean(values['insecure-http']) };
}
