import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { userInfo } from 'node:os';
import { AuditEntry } from '../../src/contract/index.js';
import { getCommand } from '../../src/cli/get.js';
import { openDatabase } from '../../src/server/db/open.js';
import { hashSecret, issueToken, revokeToken } from '../../src/server/tokens.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * `token issue` and `token revoke` on the host are audited like any API mutation, with the OS user
 * as actor (no role, no address). The built CLI runs against the data directory of a real
 * server that is running, whose audit API, export and dashboard screen then show the entries.
 */
let s: TestServer;
beforeAll(async () => {
  [s] = await Promise.all([startTestServer(), ensureBuilt()]);
}, 180_000);
afterAll(async () => {
  await s?.close();
});

const me = userInfo().username;

describe('audit of on-host token commands', () => {
  it('issue and revoke each leave one entry: the host user, role null, the token id; never the token or its hash', async () => {
    const issued = await runCli([
      'token',
      'issue',
      '--data',
      s.dataDir,
      '--role',
      'it_admin',
      '--name',
      'audited-admin',
    ]);
    expect(issued.code, issued.stderr).toBe(0);
    const token = issued.stdout.trim();
    const row = s.server.db.prepare("SELECT id, expires_at FROM api_tokens WHERE name = 'audited-admin'").get() as {
      id: string;
      expires_at: string;
    };
    const revoked = await runCli(['token', 'revoke', '--data', s.dataDir, 'audited-admin']);
    expect(revoked).toMatchObject({ code: 0, stdout: 'revoked 1 token(s)\n' });

    const res = await s.call('GET', '/audit?action=token.*&limit=10', { role: 'auditor' });
    expect(res.status).toBe(200);
    const entries = res.json.data.map((e: unknown) => AuditEntry.parse(e));
    expect(entries.map((e: AuditEntry) => e.action)).toEqual(['token.revoke', 'token.issue']);
    for (const e of entries as AuditEntry[]) {
      expect(e).toMatchObject({
        actor: { subject: me, role: null },
        target: { type: 'api_token', id: row.id, name: 'audited-admin' },
        outcome: 'success',
        source_ip: null,
        details: { name: 'audited-admin', role: 'it_admin', expires_at: row.expires_at, via: 'host-cli' },
      });
      expect(e.request_id).toMatch(/^req_/);
    }
    const raw = JSON.stringify(s.server.db.prepare("SELECT * FROM audit WHERE action LIKE 'token.%'").all());
    for (const secret of [token, hashSecret(token), token.slice(4)]) expect(raw).not.toContain(secret);

    // the auditor's export and the audit screen take an actor without a role
    const csv = await s.call('GET', '/audit/export?format=csv&action=token.issue', { role: 'auditor' });
    expect(csv.status).toBe(200);
    expect(csv.text).toMatch(
      new RegExp(`\\n[^,]+,[^,]+,${me},,token\\.issue,api_token,${row.id},success,201,req_\\w+,,`),
    );
    const out = await captured(() =>
      getCommand(['audit', '--url', s.url, '--token-file', writeTokenFile(s.tokens.auditor)], {}),
    );
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`${me} \\(no role\\) +token\\.revoke +api token audited-admin`));
  });

  it('a token revoked by name revokes each active token of that name, one entry each; a miss revokes and audits nothing', async () => {
    const ids = [issueToken(s.server.db, 'auditor', 'twin').row.id, issueToken(s.server.db, 'auditor', 'twin').row.id];
    const r = await runCli(['token', 'revoke', '--data', s.dataDir, 'twin']);
    expect(r).toMatchObject({ code: 0, stdout: 'revoked 2 token(s)\n' });
    const targets = s.server.db
      .prepare("SELECT target_id FROM audit WHERE action = 'token.revoke' AND json_extract(details, '$.name') = 'twin'")
      .pluck()
      .all();
    expect(targets.sort()).toEqual(ids.sort());
    const count = () => s.server.db.prepare("SELECT count(*) FROM audit WHERE action LIKE 'token.%'").pluck().get();
    const before = count();
    const miss = await runCli(['token', 'revoke', '--data', s.dataDir, 'twin']);
    expect(miss).toEqual({ code: 2, stdout: '', stderr: 'appliance-admin: no active token twin\n' });
    expect(count()).toBe(before);
  });

  it('the token change and its audit entry commit together: when the audit insert fails, nothing changes', () => {
    const db = openDatabase(tempDir('aa-token-atomic'));
    const refuseAudit = () =>
      db.exec("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'audit refused'); END");
    try {
      refuseAudit();
      expect(() => issueToken(db, 'it_admin', 'half', null, { subject: 'ops' })).toThrow(/audit refused/);
      expect(db.prepare('SELECT count(*) FROM api_tokens').pluck().get()).toBe(0);
      db.exec('DROP TRIGGER refuse_audit');
      issueToken(db, 'it_admin', 'whole', null, { subject: 'ops' });
      refuseAudit();
      expect(() => revokeToken(db, 'whole', { subject: 'ops' })).toThrow(/audit refused/);
      expect(db.prepare("SELECT revoked_at FROM api_tokens WHERE name = 'whole'").pluck().get()).toBeNull();
    } finally {
      db.close();
    }
  });
});

/** Runs a command in this process with stdout and stderr captured. */
async function captured(run: () => Promise<number>): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr'] as const) {
    vi.spyOn(process[stream], 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      out[stream] += String(chunk);
      (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof process.stdout.write);
  }
  try {
    return { code: await run(), ...out };
  } finally {
    vi.restoreAllMocks();
  }
}
