import { readFileSync, statSync } from 'node:fs';
import type { TokenSource } from '../client/bearer-token.js';
import { UsageError } from '../config/usage-error.js';
import { plainHttpRefusal } from '../client/transport-policy.js';
import { SessionFileError } from '../client/session/errors.js';
import { currentSession, type SessionInfo } from '../client/session/info.js';
import { defaultSessionFile } from '../client/session/store.js';

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

const NO_CREDENTIAL =
  'no credential: give the token with --token-file FILE or the APPLIANCE_ADMIN_TOKEN variable, or sign in with: appliance-admin login --issuer URL --client-id ID [--url APPLIANCE]';

/** A fixed bearer token, or a function giving a current one (the stored sign-in renews itself). */

export interface Connection {
  url: string;
  token: TokenSource;
  /** where the token comes from: a file or variable ('token'), or the stored sign-in ('session') */
  credential: 'token' | 'session';
  /** credential 'session': the session file and who is signed in (never a token) */
  session?: { file: string; info: SessionInfo };
  ca?: Buffer;
  /** --insecure-http was given */
  insecureHttp?: boolean;
}

/** Reads a token file, refusing one that group or others can read. */
function readTokenFile(file: string): string {
  let st;
  try {
    st = statSync(file);
  } catch {
    throw new UsageError(`cannot read the token file ${file}`);
  }
  if (!st.isFile()) throw new UsageError(`the token file ${file} is not a regular file`);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
    throw new UsageError(
      `the token file ${file} is readable by group or others (mode ${mode}); run: chmod 600 ${file}`,
    );
  }
  const token = readFileSync(file, 'utf8').trim();
  if (!token) throw new UsageError(`the token file ${file} is empty`);
  if (/\s/.test(token)) throw new UsageError(`the token file ${file} must hold one token on one line`);
  return token;
}

/**
 * URL, token and CA from parsed CONNECTION_OPTIONS values. The token comes from --token-file or
 * APPLIANCE_ADMIN_TOKEN, then `fileTokenFile` (the config file's default appliance); without
 * any, from the stored sign-in (whose appliance stands in for a missing --url), read afresh and
 * renewed for every request.
 */
export function resolveConnection(
  values: { url?: string; 'token-file'?: string; 'ca-file'?: string; 'insecure-http'?: boolean },
  env: NodeJS.ProcessEnv,
  usage: string,
  fileTokenFile?: string,
): Connection {
  const insecureHttp = Boolean(values['insecure-http']);
  // Checked before the token is read: the refusal does not depend on it, and nothing is sent.
  const refuse = (url: string) => {
    const refusal = plainHttpRefusal(url, insecureHttp);
    if (refusal) throw new UsageError(refusal);
  };
  if (values.url) refuse(values.url);
  const tokenFile = values['token-file'] ?? (env.APPLIANCE_ADMIN_TOKEN?.trim() ? undefined : fileTokenFile);
  const fixed = tokenFile ? readTokenFile(tokenFile) : env.APPLIANCE_ADMIN_TOKEN?.trim();
  let url = values.url;
  let credential: Pick<Connection, 'token' | 'credential' | 'session'>;
  if (fixed) {
    credential = { token: fixed, credential: 'token' };
  } else {
    const file = defaultSessionFile(env);
    const info = storedSession(file);
    if (!info) throw new UsageError(url ? NO_CREDENTIAL : `--url URL is required, and ${NO_CREDENTIAL}\n${usage}`);
    if (!url && info.applianceUrl) {
      url = info.applianceUrl;
      refuse(url);
    }
    credential = { token: sessionToken(file), credential: 'session', session: { file, info } };
  }
  if (!url) {
    const hint =
      credential.credential === 'session'
        ? ' (the stored sign-in names no appliance; appliance-admin login --url APPLIANCE remembers one)'
        : '';
    throw new UsageError(`--url URL is required${hint}\n${usage}`);
  }
  let ca: Buffer | undefined;
  if (values['ca-file']) {
    try {
      ca = readFileSync(values['ca-file']);
    } catch {
      throw new UsageError(`cannot read the CA file ${values['ca-file']}`);
    }
  }
  return { url, ...credential, ca, insecureHttp };
}

function storedSession(file: string): SessionInfo | null {
  try {
    return currentSession({ file });
  } catch (err) {
    if (err instanceof SessionFileError) throw new UsageError(err.message);
    throw err;
  }
}

/** getAccessToken for `file`; the OpenID client is loaded on the first request, not at start. */
function sessionToken(file: string): () => Promise<string> {
  let session: Promise<typeof import('../client/session/session.js')> | undefined;
  return async () => {
    session ??= import('../client/session/session.js');
    return (await session).getAccessToken({ file });
  };
}
