import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { issueToken, start, type ChildServer } from '../helpers/child-server.js';

/**
 * Issue 5, point 6 (server half): a created key's secret never reaches the process title or the
 * server's log output at the default level. The database files, the audit trail and in-process
 * logs at trace level are checked in gateway.test.ts ('secrets').
 */
let server: ChildServer;
let pool: Pool;
let token: string;
const secrets: string[] = [];

const proc = (what: string) => readFileSync(`/proc/${server.pid}/${what}`, 'latin1');
/** the title as `ps` shows it (process.title writes into this memory) */
const psTitle = () => execFileSync('ps', ['-o', 'args=', '-p', String(server.pid)], { encoding: 'utf8' });

async function call(method: 'GET' | 'POST' | 'PUT', path: string, opts: { bearer?: string; body?: unknown } = {}) {
  const res = await pool.request({
    method,
    path,
    headers: {
      authorization: `Bearer ${opts.bearer ?? token}`,
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  const root = tempDir('aa-proc-secrets');
  const dataDir = join(root, 'data');
  token = await issueToken(dataDir, 'it_admin', 'secrets-admin');
  server = await start(dataDir, { config: fixtureConfig(root) });
  pool = new Pool(server.url, { connections: 2 });
}, 60_000);
afterAll(async () => {
  await pool?.close();
  await server?.stop();
});

describe('secrets and the server process', () => {
  it('keeps created key secrets and admin tokens out of the process title and the default log', async () => {
    const titleBefore = proc('cmdline');
    for (let i = 0; i < 5; i++) {
      const res = await call('POST', '/v1/admin/gateway/keys', {
        body: { name: `proc-secret-${i}`, quota: { requests_per_minute: 100 } },
      });
      expect(res.status).toBe(201);
      secrets.push(res.json.secret as string);
    }
    // the secrets in use: good calls, a wrong one, one at the admin API, one after revocation
    for (const secret of secrets)
      expect((await call('POST', '/v1/gateway/chat', { bearer: secret, body: { max_tokens: 5 } })).status).toBe(200);
    expect((await call('POST', '/v1/gateway/chat', { bearer: `${secrets[0]}x`, body: {} })).status).toBe(401);
    expect((await call('GET', '/v1/admin/session', { bearer: secrets[1] })).status).toBe(401);
    const keys = (await call('GET', '/v1/admin/gateway/keys')).json.data as { id: string; name: string }[];
    const revoked = keys.find((k) => k.name === 'proc-secret-2')!;
    expect((await call('POST', `/v1/admin/gateway/keys/${revoked.id}/revoke`)).status).toBe(200);
    expect((await call('POST', '/v1/gateway/chat', { bearer: secrets[2], body: {} })).status).toBe(401);

    const title = proc('cmdline');
    expect(title).toBe(titleBefore);
    expect(title).toContain('serve');
    const places = { cmdline: title, comm: proc('comm'), environ: proc('environ'), ps: psTitle() };
    await server.stop(); // flushes the log and writes the shutdown line
    const logs = { stderr: server.stderr(), stdout: server.stdout() };
    // the default level really logged the requests, so an absent secret means something
    expect(logs.stderr).toMatch(/incoming request/);
    expect(logs.stderr.split('\n').length).toBeGreaterThan(20);

    for (const [where, text] of Object.entries({ ...places, ...logs })) {
      for (const secret of secrets) {
        expect(text.includes(secret), `${where} holds a key secret`).toBe(false);
        expect(text.includes(secret.slice(4)), `${where} holds a key secret's random part`).toBe(false);
      }
      expect(text.includes(token), `${where} holds the admin token`).toBe(false);
    }
  });
});
