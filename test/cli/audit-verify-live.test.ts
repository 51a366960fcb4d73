import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startHostile, type HostileServer } from '../helpers/hostile-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * `audit verify --url` against a real server behind a peer that changes what it serves (issue 36
 * §4, §9): a proxy that drops entries and says "filtered", a statement for another export, and an
 * appliance that never stops sending. The verdict comes only from what the appliance signed, and
 * the verifier stops where the signed statement says the export ends.
 */
let s: TestServer;
let peer: HostileServer;
let token: string;
let keyFile: string;

/** The real export's status, headers and body, read from the server behind the peer. */
async function upstreamExport(query = 'format=jsonl') {
  const r = await request(`${s.url}/v1/admin/audit/export?${query}`, {
    headers: { authorization: `Bearer ${s.tokens.auditor}` },
  });
  return { headers: r.headers, body: await r.body.text() };
}

function answer(
  res: ServerResponse,
  headers: Record<string, unknown>,
  body: string,
  extra: Record<string, string> = {},
) {
  const out: Record<string, string> = { 'content-type': 'application/x-ndjson', ...extra };
  for (const h of ['audit-checkpoint', 'audit-export-statement', 'audit-export-filtered'])
    if (typeof headers[h] === 'string' && !(h in extra)) out[h] = headers[h] as string;
  res.writeHead(200, out);
  res.end(body);
}

const verify = (extra: string[] = []) =>
  runCli(['audit', 'verify', '--url', peer.url, '--token-file', token, ...extra], { timeoutMs: 60_000 });

beforeAll(async () => {
  await ensureBuilt();
  s = await startTestServer();
  for (let i = 0; i < 30; i++)
    expect((await s.call('POST', '/gateway/keys', { body: { name: `live-${i}` } })).status).toBe(201);
  peer = await startHostile({ upstream: s.url });
  token = writeTokenFile(s.tokens.auditor);
  keyFile = join(tempDir('aa-live'), 'appliance.pem');
  const keys = await s.call('GET', '/audit/checkpoints', { role: 'auditor' });
  writeFileSync(keyFile, keys.json.public_keys[0].public_key_pem);
}, 120_000);

afterAll(async () => {
  await peer?.close();
  await s?.close();
});

describe('audit verify --url', () => {
  it('through an honest peer: exit 0 with the pinned key, exit 4 with the served one', async () => {
    peer.clear();
    const pinned = await verify(['--key', keyFile]);
    expect(pinned.stdout).toMatch(/^verified: the whole trail, entries #1–#\d+ \(\d+\), complete and unaltered/m);
    expect(pinned.code).toBe(0);
    const served = await verify();
    expect(served.stdout).toMatch(/^verified with an unpinned key: the whole trail/m);
    expect(served.stdout).toContain('the key was not pinned: fetch it with audit key --url URL -o appliance.pem');
    expect(served.code).toBe(4);
  });

  it('a proxy that strips the signed statement: nothing vouches for the export, exit 1', async () => {
    peer.set('/audit/export', async (_req, res) => {
      const up = await upstreamExport();
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(up.body);
    });
    const r = await verify(['--key', keyFile]);
    expect(r.stdout).toMatch(/^no signed statement: nothing the appliance signed says what this file holds/);
    expect(r.code).toBe(1);
  });

  it('a proxy that drops 11 entries and answers Audit-Export-Filtered: true is found (§4)', async () => {
    peer.set('/audit/export', async (_req, res) => {
      const up = await upstreamExport();
      const kept = up.body.split('\n').filter((l, i) => l && (i < 5 || i > 15));
      answer(res, up.headers, `${kept.join('\n')}\n`, { 'audit-export-filtered': 'true' });
    });
    const r = await verify(['--key', keyFile]);
    expect(r.stdout).toContain('entries #6–#16 missing (11)');
    expect(r.code).toBe(1);
  });

  it("a statement for another export (the appliance's own, for a filter) does not verify the one asked for", async () => {
    const filtered = await upstreamExport('format=jsonl&actor=alice-admin');
    peer.set('/audit/export', (_req, res) => answer(res, filtered.headers, filtered.body));
    const r = await verify(['--key', keyFile]);
    expect(r.stdout).toContain(
      'the appliance\'s signed statement is for another export (filters: actor="alice-admin"), not the one asked for',
    );
    expect(r.code).toBe(1);
  });

  it('an export that never ends is read only as far as the signed count allows (§9)', async () => {
    peer.set('/audit/export', async (req, res) => {
      const up = await upstreamExport();
      const out: Record<string, string> = { 'content-type': 'application/x-ndjson' };
      for (const h of ['audit-checkpoint', 'audit-export-statement']) out[h] = up.headers[h] as string;
      res.writeHead(200, out);
      // one line without end: a reader that holds lines whole would grow until it is killed
      const junk = Buffer.alloc(1 << 20, 0x61);
      const pump = () => {
        while (!res.destroyed && res.write(junk));
      };
      res.on('drain', pump);
      req.on('close', () => res.destroy());
      pump();
    });
    const r = await verify(['--key', keyFile]);
    expect(r.stdout).toMatch(/the export is larger than its signed count allows \(over [\d,]+ bytes\): refused/);
    expect(r.code).toBe(1);
  });

  it('an unsigned count never sets how much is read: a forged statement over an endless body is not read (§9)', async () => {
    peer.set('/audit/export', async (req, res) => {
      const up = await upstreamExport();
      const real = JSON.parse(String(up.headers['audit-export-statement']));
      const forged = { ...real, statement: { ...real.statement, count: 2_000_000_000 } };
      res.writeHead(200, { 'content-type': 'application/x-ndjson', 'audit-export-statement': JSON.stringify(forged) });
      const junk = Buffer.alloc(1 << 20, 0x61);
      const pump = () => {
        while (!res.destroyed && res.write(junk));
      };
      res.on('drain', pump);
      req.on('close', () => res.destroy());
      pump();
    });
    const r = await verify(['--key', keyFile]);
    expect(r.stdout).toMatch(/signature does not verify with key SHA256:.*: it was changed after signing/);
    expect(r.stdout).toContain('the export was not read: nothing the appliance signed says what it holds');
    expect(r.code).toBe(1);
  });

  it('reads one checkpoint, the newest: a list whose pages never end is never paged (§9)', async () => {
    peer.clear();
    const before = peer.count('GET /audit/checkpoints');
    peer.set('/audit/checkpoints', async (req, res) => {
      // the real first page, but claiming more pages for ever
      const r = await request(`${s.url}${req.url}`, { headers: { authorization: `Bearer ${s.tokens.auditor}` } });
      const page = (await r.body.json()) as Record<string, unknown>;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...page, has_more: true, next_cursor: `c${Math.random()}` }));
    });
    const r = await verify(['--key', keyFile]);
    expect(r.stdout).toMatch(/^verified: the whole trail/m);
    expect(r.code).toBe(0);
    expect(peer.count('GET /audit/checkpoints') - before).toBe(1);
  });

  it('an appliance that cannot be reached: could not check, exit 3', async () => {
    peer.clear();
    const r = await runCli(['audit', 'verify', '--url', 'http://127.0.0.1:9', '--token-file', token, '--key', keyFile]);
    expect(r.stderr).toContain('audit verify failed');
    expect(r.code).toBe(3);
  });
});

describe('audit key --url', () => {
  it("writes the appliance's keys and prints the fingerprints to compare; verify then pins them", async () => {
    peer.clear();
    const out = join(tempDir('aa-key'), 'appliance.pem');
    const r = await runCli(['audit', 'key', '--url', s.url, '--token-file', token, '-o', out]);
    expect(r.stdout).toMatch(
      /^wrote 1 key to .*appliance\.pem:\n {2}SHA256:\w{4} \w{4} \w{4} \w{4} {2}current {2}\(\w{64}\)/,
    );
    expect(r.code).toBe(0);
    expect((await runCli(['audit', 'key', '--url', s.url, '--token-file', token, '-o', out])).code).toBe(2);
    const v = await runCli(['audit', 'verify', '--url', s.url, '--token-file', token, '--key', out]);
    expect(v.code).toBe(0);
  });
});
