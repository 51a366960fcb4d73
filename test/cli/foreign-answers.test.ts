import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportCommand } from '../../src/cli/export.js';
import { getCommand } from '../../src/cli/get.js';
import { writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { json, startHostile, type HostileServer, type Reply } from '../helpers/hostile-server.js';
import { NGINX_WELCOME, nginxWelcome, plainText, redirect, unrelatedJson } from '../helpers/not-an-appliance.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * `get` and `export` pointed at something that is not an appliance: exit 1 with the reason,
 * nothing printed as data, no file left. The commands run in this process (their source, not
 * dist/) against real peers on loopback; the real server shows that an appliance still works.
 */
let s: TestServer;
let h: HostileServer;
let token: string;
let out: { stdout: string; stderr: string };

beforeAll(async () => {
  s = await startTestServer();
  h = await startHostile();
  token = writeTokenFile(s.tokens.auditor);
});
afterEach(() => {
  vi.restoreAllMocks();
  h.clear();
});
afterAll(async () => {
  await h?.close();
  await s?.close();
});

/** Runs a command with stdout and stderr captured. */
async function run(
  command: (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>,
  argv: string[],
): Promise<number> {
  out = { stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    vi.spyOn(process[stream], 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      out[stream] += String(chunk);
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof process.stdout.write);
  capture('stdout');
  capture('stderr');
  try {
    return await command(argv, {});
  } finally {
    vi.restoreAllMocks();
  }
}

const at = (url: string) => ['--url', url, '--token-file', token];

describe('appliance-admin export from something that is not an appliance', () => {
  const exportFrom = async (reply: Reply, format = 'csv') => {
    h.set('*', reply);
    const dir = tempDir('aa-foreign-cli');
    const file = join(dir, `nginx.${format}`);
    const code = await run(exportCommand, ['audit', '--format', format, '--since', '7d', '-o', file, ...at(h.url)]);
    return { code, dir, file };
  };

  it("nginx's welcome page: exit 1, the Content-Type named, no file", async () => {
    const r = await exportFrom(nginxWelcome());
    expect(r.code).toBe(1);
    expect(out.stderr).toBe(
      'appliance-admin: export audit failed: the answer is not an export from an appliance: Content-Type text/html, where a csv export is text/csv (an HTML page: Welcome to nginx!)\n  code transport/protocol\n',
    );
    expect(out.stderr).not.toContain('exported');
    expect(readdirSync(r.dir)).toEqual([]);
  });

  it('text/plain and unrelated JSON: exit 1, no file', async () => {
    for (const [reply, format] of [
      [plainText(), 'csv'],
      [unrelatedJson(), 'jsonl'],
    ] as const) {
      const r = await exportFrom(reply, format);
      expect(r.code).toBe(1);
      expect(out.stderr).toMatch(
        /^appliance-admin: export audit failed: the answer is not an export from an appliance: Content-Type (text\/plain|application\/json)/,
      );
      expect(readdirSync(r.dir)).toEqual([]);
    }
  });

  it('a 302 to a sign-in proxy: exit 1, where it redirects to named, no file', async () => {
    const r = await exportFrom(redirect('https://sso.example.test/oauth2/start?rd=%2F'));
    expect(r.code).toBe(1);
    expect(out.stderr).toMatch(
      /^appliance-admin: export audit failed: the answer to GET \/audit\/export is a redirect \(302\) to https:\/\/sso\.example\.test\/oauth2\/start\?…; not followed/,
    );
    expect(readdirSync(r.dir)).toEqual([]);
  });

  it('with --force, the file already there is left as it was', async () => {
    h.set('*', nginxWelcome());
    const file = join(tempDir('aa-foreign-cli'), 'kept.csv');
    writeFileSync(file, 'earlier export\n');
    expect(await run(exportCommand, ['audit', '-o', file, '--force', ...at(h.url)])).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe('earlier export\n');
    expect(existsSync(`${file}.part`)).toBe(false);
  });

  it('the reference server: exit 0 and the file written', async () => {
    const file = join(tempDir('aa-foreign-cli'), 'audit.csv');
    expect(await run(exportCommand, ['audit', '--format', 'csv', '--since', '7d', '-o', file, ...at(s.url)])).toBe(0);
    expect(out.stderr).toMatch(/^exported \d+ audit rows? \(csv, [\d,]+ bytes\)/);
    expect(readFileSync(file, 'utf8')).toMatch(/^id,at,/);
    expect(readFileSync(file, 'utf8')).not.toContain(NGINX_WELCOME);
  });
});

describe('appliance-admin get from something that is not an appliance', () => {
  it('unrelated JSON for get keys --json: exit 1, one line with the reason, nothing on stdout', async () => {
    h.set('*', unrelatedJson());
    expect(await run(getCommand, ['keys', '--json', ...at(h.url)])).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe(
      'appliance-admin: get keys failed: the answer to GET /gateway/keys is not from the appliance API: a JSON object without a "data" list (its fields: "hello")\n  code transport/protocol\n',
    );
  });

  it('unrelated JSON for the table: no "0 keys", no "No gateway keys yet"', async () => {
    h.set('*', unrelatedJson({ status: 'ok' }));
    expect(await run(getCommand, ['keys', ...at(h.url)])).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).not.toMatch(/0 keys|No gateway keys yet/);
    expect(out.stderr).toContain('a JSON object without a "data" list (its fields: "status")');
  });

  it('a 302 for get: exit 1 naming the target', async () => {
    h.set('*', redirect('https://sso.example.test/login'));
    expect(await run(getCommand, ['keys', '--json', ...at(h.url)])).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(
      /^appliance-admin: get keys failed: the answer to GET \/gateway\/keys is a redirect \(302\) to https:\/\/sso\.example\.test\/login;/,
    );
  });

  it('an object screen (deployment) with unrelated JSON: exit 1', async () => {
    h.set('*', unrelatedJson());
    expect(await run(getCommand, ['deployment', '--json', ...at(h.url)])).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(
      'the answer to GET /deployment is not from the appliance API: a JSON object with none of the fields of this answer',
    );
  });

  it('a note on an answer that does not fit the contract names its keys without their escape sequences', async () => {
    const defaults = { tokens_per_run: 1, tool_calls_per_run: 1, seconds_per_run: 1, tokens_per_day: 1 };
    h.set(
      '/agent/budgets',
      json({
        defaults,
        agents: { 'ev\x1b]0;owned\x07\x1b[2Jil': { tokens_per_run: 'many' } },
        updated_at: null,
        updated_by: null,
      }),
    );
    expect(await run(getCommand, ['budgets', '--json', ...at(h.url)])).toBe(0);
    expect(out.stderr).toBe(
      'appliance-admin: note: the answer for budgets does not fit the contract (1 issue), first agents.evil.tokens_per_run: Invalid input: expected number, received string\n',
    );
  });

  it('the reference server: get keys --json prints its list and exits 0', async () => {
    await s.call('POST', '/gateway/keys', { body: { name: 'foreign-cli' } });
    expect(await run(getCommand, ['keys', '--json', ...at(s.url)])).toBe(0);
    expect(out.stderr).toBe('');
    const printed = JSON.parse(out.stdout);
    expect(printed.data.map((k: { name: string }) => k.name)).toContain('foreign-cli');
  });
});
