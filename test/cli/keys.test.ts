import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { snapshot, startTestServer, type TestServer } from '../helpers/server.js';
import { insertGatewayKeys, numberedKeys } from '../helpers/seed-gateway-keys.js';

/**
 * `appliance-admin keys rotate|expire|unused` against the real server: the new secret once, alone
 * on stdout (the warning on stderr), never the admin token; expiry by a length or a time; the keys
 * nobody used. Bad usage sends nothing.
 */
let s: TestServer;
let adminToken: string;
let auditorToken: string;
const DAY = 86_400_000;
const as = (file: string) => ['--url', s.url, '--token-file', file];
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const gateway = (secret: string) =>
  s.call('POST', '/v1/gateway/chat', { role: null, token: secret, body: { messages: [] } });

let partner: { id: string; secret: string; prefix: string };
beforeAll(async () => {
  await ensureBuilt();
  s = await startTestServer();
  adminToken = writeTokenFile(s.tokens.it_admin);
  auditorToken = writeTokenFile(s.tokens.auditor);
  partner = (await s.call('POST', '/gateway/keys', { body: { name: 'partner-feed' } })).json;
  for (const name of ['stale-batch', 'never-used', 'fresh']) await s.call('POST', '/gateway/keys', { body: { name } });
  const set = s.server.db.prepare('UPDATE gateway_keys SET created_at = ?, last_used_at = ? WHERE name = ?');
  set.run(ago(100), ago(45), 'stale-batch');
  set.run(ago(60), null, 'never-used');
  set.run(ago(100), ago(1), 'fresh');
  set.run(ago(100), ago(1), 'partner-feed');
});
afterAll(async () => {
  await s?.close();
});

describe('appliance-admin keys', () => {
  it('rotate prints the new secret once, alone on stdout; what it did and a warning go to stderr; the token never', async () => {
    const r = await runCli(['keys', 'rotate', 'partner-feed', '--grace', '2h', ...as(adminToken)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^agk_[A-Za-z0-9_-]{43}\n$/);
    const secret = r.stdout.trim();
    expect(r.stderr).not.toContain(secret);
    expect(r.stderr).toMatch(/rotated partner-feed \(key_\w+\): new prefix agk_/);
    expect(r.stderr).toContain(`the old secret ${partner.prefix}… works until`);
    expect(r.stderr).toMatch(/warning: the new secret follows on stdout and is shown only now/);
    expect(r.stdout + r.stderr).not.toContain(s.tokens.it_admin);
    // both secrets work during the two-hour grace
    expect((await gateway(secret)).status).toBe(200);
    expect((await gateway(partner.secret)).status).toBe(200);
    const row = s.server.db
      .prepare('SELECT valid_until_ms, replaced_at FROM gateway_key_replaced_secrets WHERE key_id = ?')
      .get(partner.id) as { valid_until_ms: number; replaced_at: string };
    expect(row.valid_until_ms - Date.parse(row.replaced_at)).toBe(2 * 3600_000);
    // --grace 0, by id: the old secret is refused at once
    const again = await runCli(['keys', 'rotate', partner.id, '--grace', '0', ...as(adminToken)]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/the gateway refuses the old secret agk_\S+ from now on/);
    expect((await gateway(secret)).status).toBe(401);
    expect((await gateway(again.stdout.trim())).status).toBe(200);
  });

  it('expire sets an expiry by a length or a time, and clears it; bad usage sends nothing', async () => {
    const id = (s.server.db.prepare("SELECT id FROM gateway_keys WHERE name = 'fresh'").get() as { id: string }).id;
    const stored = () =>
      (s.server.db.prepare('SELECT expires_at FROM gateway_keys WHERE id = ?').get(id) as { expires_at: string | null })
        .expires_at;
    const inMonth = await runCli(['keys', 'expire', 'fresh', '--in', '30d', ...as(adminToken)]);
    expect(inMonth.code, inMonth.stderr).toBe(0);
    expect(inMonth.stdout).toMatch(/^fresh \(key_\w+\) expires in 30 days \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\n$/);
    expect(Math.abs(Date.parse(stored()!) - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
    const at = await runCli(['keys', 'expire', id, '--at', '2099-01-02T03:04:05+01:00', ...as(adminToken)]);
    expect(at.code, at.stderr).toBe(0);
    expect(stored()).toBe('2099-01-02T02:04:05Z');
    const never = await runCli(['keys', 'expire', id, '--never', ...as(adminToken)]);
    expect([never.code, never.stdout]).toEqual([0, `fresh (${id}) does not expire\n`]);
    expect(stored()).toBeNull();

    const audit = snapshot(s, 'audit');
    const keys = snapshot(s, 'gateway_keys');
    for (const [args, words] of [
      [['--in', '30d', '--never'], /one of --at TIME, --in LENGTH, --never/],
      [['--at', '2001-01-01'], /must be in the future/],
      [['--at', '30d'], /--at must be an RFC 3339 time or a date/],
    ] as const) {
      const r = await runCli(['keys', 'expire', id, ...args, ...as(adminToken)]);
      expect([r.code, r.stderr], args.join(' ')).toEqual([2, expect.stringMatching(words)]);
    }
    const unknown = await runCli(['keys', 'expire', 'no-such-key', '--never', ...as(adminToken)]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      expect.stringMatching(/no gateway key with the id or active name/),
    ]);
    const grace = await runCli(['keys', 'rotate', id, '--grace', '31d', ...as(adminToken)]);
    expect([grace.code, grace.stderr]).toEqual([2, expect.stringMatching(/--grace must be/)]);
    expect(snapshot(s, 'gateway_keys')).toEqual(keys);
    expect(snapshot(s, 'audit')).toEqual(audit);
  });

  it('unused lists active keys idle for --days, oldest use first, as a table or JSON', async () => {
    const r = await runCli(['keys', 'unused', ...as(auditorToken)]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('2 active keys not used for 30 days');
    expect(lines[1]).toMatch(/^Name\s+Id\s+Prefix\s+Last used\s+Created$/);
    expect(lines.slice(2).map((l) => l.split(/\s+/)[0])).toEqual(['never-used', 'stale-batch']);
    expect(lines[3]).toMatch(/stale-batch\s+key_\w+\s+agk_\S+\s+45 d ago/);
    const json = await runCli(['keys', 'unused', '--days', '50', '--json', ...as(auditorToken)]);
    expect(json.code, json.stderr).toBe(0);
    const keys = JSON.parse(json.stdout) as { name: string; secret?: string }[];
    expect(keys.map((k) => k.name)).toEqual(['never-used']);
    expect(keys[0].secret).toBeUndefined();
    const bad = await runCli(['keys', 'unused', '--days', 'many', ...as(auditorToken)]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--days must be a whole number/)]);
    const far = await runCli(['keys', 'unused', '--days', '3651', ...as(auditorToken)]);
    expect([far.code, far.stderr]).toEqual([
      2,
      expect.stringMatching(/--days must be a whole number of days from 1 to 3650/),
    ]);
  });

  it('an auditor is refused (403) and told so; nothing is printed on stdout', async () => {
    const keys = snapshot(s, 'gateway_keys');
    const r = await runCli(['keys', 'rotate', 'stale-batch', ...as(auditorToken)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/keys rotate failed: .*role auditor may not perform gateway\.key\.rotate/);
    expect(r.stderr).toMatch(/code SVC-ADMIN-403, request req_\w+/);
    expect(r.stderr).not.toContain(s.tokens.auditor);
    expect(snapshot(s, 'gateway_keys')).toEqual(keys);
  });

  it('keys --help names the three commands; the main help lists them', async () => {
    const help = await runCli(['keys', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/keys rotate KEY \[--grace 24h\]/);
    expect(help.stdout).toMatch(/keys expire KEY --at TIME \| --in 30d \| --never/);
    expect(help.stdout).toMatch(/keys unused \[--days 30\] \[--json\]/);
    const main = await runCli(['--help']);
    expect(main.stdout).toMatch(/appliance-admin keys rotate KEY/);
    const none = await runCli(['keys', 'renew', 'x', '--url', s.url, '--token-file', adminToken]);
    expect([none.code, none.stderr]).toEqual([2, expect.stringMatching(/unknown keys command "renew"/)]);
  });

  it('finds a key by name or id among pages of keys that begin with its name, and lists idle keys from every page', async () => {
    const db = s.server.db;
    const created = ago(90);
    insertGatewayKeys(
      db,
      numberedKeys('many', 1200, (i) => ({ name: `Partner-Feed-${i}`, created_at: created })),
    );
    const named = await runCli(['keys', 'expire', 'PARTNER-FEED', '--in', '30d', ...as(adminToken)]);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toMatch(/^partner-feed \(key_\w+\) expires in 30 days/);
    const byId = await runCli(['keys', 'expire', 'key_many1100', '--never', ...as(adminToken)]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toBe('Partner-Feed-1100 (key_many1100) does not expire\n');
    const none = await runCli(['keys', 'expire', 'partner', '--never', ...as(adminToken)]);
    expect([none.code, none.stderr]).toEqual([
      2,
      expect.stringMatching(/no gateway key with the id or active name "partner"/),
    ]);
    const idle = await runCli(['keys', 'unused', '--days', '80', '--json', ...as(auditorToken)]);
    expect(idle.code, idle.stderr).toBe(0);
    const ids = (JSON.parse(idle.stdout) as { id: string }[]).map((k) => k.id);
    expect(ids.length).toBe(1200);
    expect(new Set(ids).size).toBe(1200);
  });
});
