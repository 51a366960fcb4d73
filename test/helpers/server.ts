import { request } from 'undici';
import { buildServer, type AdminServer } from '../../src/server/app.js';
import type { ServerConfig } from '../../src/server/config.js';
import type { ServerOptions } from '../../src/server/options.js';
import { issueToken } from '../../src/server/tokens.js';
import type { Role } from '../../src/contract/index.js';
import type { Logger } from 'pino';
import { fixtureConfig, tempDir } from './fixtures.js';

export interface CallOptions {
  role?: Role | null;
  token?: string;
  body?: unknown;
  /** raw body text (sent as application/json unless headers say otherwise) */
  raw?: string;
  headers?: Record<string, string>;
}
export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;

  json: any;
}

export interface TestServer {
  url: string;
  dataDir: string;
  server: AdminServer;
  config: ServerConfig;
  tokens: Record<Role, string>;
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

/** The real server on loopback with a temporary data directory and one token per role. */
export async function startTestServer(
  opts: {
    config?: (root: string) => ServerConfig;
    demo?: boolean;
    logger?: Logger;
    dataDir?: string;
    /**
     * The clock refused requests (401) are counted by, per minute, and the rate limit refills by. By
     * default it stands still at the server's start, so that a minute's auth.refused entry is written
     * only at close: a test that sends a bad token and then reads the trail whole never finds one
     * written in between. test/server/auth-refused.test.ts and rate-limit.test.ts move their own.
     */
    now?: () => number;
    /** how long a failed background task waits before its next try (src/server/background.ts) */
    background?: ServerOptions['background'];
  } = {},
): Promise<TestServer> {
  const root = tempDir('aa-test');
  const dataDir = opts.dataDir ?? `${root}/data`;
  const config = opts.config ? opts.config(root) : fixtureConfig(root);
  const startedAt = Date.now();
  const server = await buildServer({
    dataDir,
    config,
    demo: opts.demo,
    logger: opts.logger,
    now: opts.now ?? (() => startedAt),
    background: opts.background,
  });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = server.app.server.address() as { port: number };
  const url = `http://127.0.0.1:${addr.port}`;
  const tokens = {
    it_admin: issueToken(server.db, 'it_admin', 'alice-admin').token,
    app_owner: issueToken(server.db, 'app_owner', 'olga-owner').token,
    auditor: issueToken(server.db, 'auditor', 'aude-auditor').token,
  };
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<CallResult> => {
    const role = o.role === undefined ? 'it_admin' : o.role;
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const token = o.token ?? (role ? tokens[role] : undefined);
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    const res = await request(url + (path.startsWith('/v1/') ? path : `/v1/admin${path}`), {
      method: method as 'GET',
      headers,
      body,
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, json };
  };
  return {
    url,
    dataDir,
    server,
    config,
    tokens,
    call,
    close: () => server.close(),
  };
}

/** Rows of a table, for "storage is unchanged" assertions. */
export const snapshot = (s: TestServer, table: string) =>
  s.server.db.prepare(`SELECT * FROM ${table} ORDER BY 1`).all();
