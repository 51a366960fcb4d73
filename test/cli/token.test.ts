import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/server/db/open.js';
import { issueToken, revokeToken } from '../../src/server/tokens.js';
import { tempDir } from '../helpers/fixtures.js';
import { runCli } from '../helpers/cli.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { until } from '../helpers/until.js';

// the built CLI (bin/appliance-admin.cjs), as a user runs it
beforeAll(ensureBuilt, 180_000);

describe.concurrent('appliance-admin token', () => {
  it('list shows an expired token as expired, next to active and revoked ones', async () => {
    const dir = tempDir('aa-token-list');
    const db = openDatabase(dir);
    const alice = issueToken(db, 'it_admin', 'alice', null).row;
    const later = issueToken(db, 'auditor', 'later', 86_400_000).row;
    const brief = issueToken(db, 'app_owner', 'brief', 50).row;
    const gone = issueToken(db, 'auditor', 'gone', null).row;
    revokeToken(db, 'gone');
    db.close();
    await until('the brief one to expire', () => Date.now() > Date.parse(brief.expires_at!));
    const r = await runCli(['token', 'list', '--data', dir]);
    expect(r.code, r.stderr).toBe(0);
    const state = Object.fromEntries(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t'))
        .map((cells) => [cells[0], [cells[4], cells[5]]]),
    );
    expect(state[alice.id]).toEqual(['never', 'active']);
    expect(state[later.id]).toEqual([later.expires_at, 'active']);
    expect(state[brief.id]).toEqual([brief.expires_at, 'expired']);
    expect(state[gone.id][1]).toMatch(/^revoked \d{4}-\d\d-\d\dT/);
  });

  it("list prints a token's name without its escape sequences", async () => {
    const dir = tempDir('aa-token-name');
    const db = openDatabase(dir);
    const row = issueToken(db, 'auditor', 'ci\x1b]0;owned\x07\x1b[2J\u202ebot').row;
    db.close();
    const r = await runCli(['token', 'list', '--data', dir]);
    expect(r.stdout.split('\t').slice(0, 2)).toEqual([row.id, 'cibot']);
    expect(r.stdout).not.toMatch(/[\x1b\x07\u202e]/);
  });

  it('list and revoke with a --data that holds no database: exit 2, nothing created', async () => {
    const parent = tempDir('aa-token-typo');
    for (const args of [['list'], ['revoke', 'alice']]) {
      const typo = join(parent, `typo-${args[0]}`);
      const r = await runCli(['token', ...args, '--data', typo]);
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `appliance-admin: ${typo} holds no appliance database (appliance-admin.db); check --data\n`,
      });
      expect(existsSync(typo)).toBe(false);
    }
    // an existing directory that is not an appliance's is not made one either
    const r = await runCli(['token', 'list', '--data', parent]);
    expect(r.code).toBe(2);
    expect(existsSync(join(parent, 'appliance-admin.db'))).toBe(false);
  });

  it('an unknown subcommand, or bad issue arguments, are refused before the data directory is created', async () => {
    const parent = tempDir('aa-token-sub');
    const unknown = await runCli(['token', 'lsit', '--data', join(parent, 'a')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^appliance-admin: unknown token command "lsit"\nUsage: appliance-admin token issue/,
    );
    expect(existsSync(join(parent, 'a'))).toBe(false);
    const badRole = await runCli(['token', 'issue', '--data', join(parent, 'b'), '--role', 'root', '--name', 'x']);
    expect(badRole).toMatchObject({
      code: 2,
      stderr: 'appliance-admin: --role must be one of it_admin, app_owner, auditor\n',
    });
    expect(existsSync(join(parent, 'b'))).toBe(false);
    const noTarget = await runCli(['token', 'revoke', '--data', join(parent, 'c')]);
    expect(noTarget).toMatchObject({ code: 2, stderr: 'appliance-admin: token revoke needs a token id or name\n' });
    expect(existsSync(join(parent, 'c'))).toBe(false);
  });

  it('issue still creates a new data directory (before the server first starts)', async () => {
    const dir = join(tempDir('aa-token-new'), 'data');
    const r = await runCli(['token', 'issue', '--data', dir, '--role', 'auditor', '--name', 'first']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^aat_\S+\n$/);
    expect(existsSync(join(dir, 'appliance-admin.db'))).toBe(true);
  });
});

describe.concurrent('token lifetime', () => {
  const DAY = 86_400_000;
  const expiryOf = (dir: string, name: string) => {
    const db = openDatabase(dir);
    try {
      return db.prepare('SELECT expires_at FROM api_tokens WHERE name = ?').pluck().get(name) as string | null;
    } finally {
      db.close();
    }
  };

  it('issue gives a token 90 days unless --ttl-days or --no-expiry; list says "never" for one without expiry', async () => {
    const dir = tempDir('aa-token-ttl');
    const before = Date.now();
    const plain = await runCli(['token', 'issue', '--data', dir, '--role', 'it_admin', '--name', 'default']);
    expect(plain.code, plain.stderr).toBe(0);
    const expires = Date.parse(expiryOf(dir, 'default')!);
    expect(expires).toBeGreaterThanOrEqual(before + 90 * DAY);
    expect(expires).toBeLessThanOrEqual(Date.now() + 90 * DAY);
    expect(plain.stderr).toMatch(
      /^issued tok_\w+ \(it_admin\) for default, valid until \d{4}-\d\d-\d\dT\S+Z; it is shown only now\n$/,
    );

    const week = await runCli([
      'token',
      'issue',
      '--data',
      dir,
      '--role',
      'auditor',
      '--name',
      'week',
      '--ttl-days',
      '7',
    ]);
    expect(week.code, week.stderr).toBe(0);
    expect(Date.parse(expiryOf(dir, 'week')!) - Date.now()).toBeLessThanOrEqual(7 * DAY);

    const forever = await runCli([
      'token',
      'issue',
      '--data',
      dir,
      '--role',
      'app_owner',
      '--name',
      'forever',
      '--no-expiry',
    ]);
    expect(forever.code, forever.stderr).toBe(0);
    expect(forever.stderr).toMatch(/ for forever, never expires; it is shown only now\n$/);
    expect(expiryOf(dir, 'forever')).toBeNull();

    const list = await runCli(['token', 'list', '--data', dir]);
    const rows = Object.fromEntries(
      list.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t'))
        .map((c) => [c[1], c[4]]),
    );
    expect(rows).toEqual({ default: expiryOf(dir, 'default'), week: expiryOf(dir, 'week'), forever: 'never' });
  });

  it('--ttl-days with --no-expiry, or a bad --ttl-days, is refused and issues nothing', async () => {
    const dir = tempDir('aa-token-ttl-bad');
    const both = await runCli([
      'token',
      'issue',
      '--data',
      dir,
      '--role',
      'auditor',
      '--name',
      'x',
      '--ttl-days',
      '7',
      '--no-expiry',
    ]);
    expect(both).toEqual({
      code: 2,
      stdout: '',
      stderr: 'appliance-admin: --ttl-days and --no-expiry contradict each other: give one\n',
    });
    for (const ttl of ['0', '-1', 'soon']) {
      const r = await runCli([
        'token',
        'issue',
        '--data',
        dir,
        '--role',
        'auditor',
        '--name',
        'x',
        `--ttl-days=${ttl}`,
      ]);
      expect(r, ttl).toEqual({
        code: 2,
        stdout: '',
        stderr: 'appliance-admin: --ttl-days must be a positive number\n',
      });
    }
    expect(existsSync(join(dir, 'appliance-admin.db'))).toBe(false);
  });
});
