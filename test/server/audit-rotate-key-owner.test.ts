import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, start, type ChildServer } from '../helpers/child-server.js';
import { worldReadableCli, type CliCopy } from '../helpers/cli-copy.js';
import { tempDir } from '../helpers/fixtures.js';
import { DataDirError, writeOwnedPrivateFile } from '../../src/server/db/data-dir.js';
import { KEY_FILE } from '../../src/server/audit-chain/keys.js';
import { SIGNED_HEAD_FILE } from '../../src/server/audit-chain/signed-head.js';
import { auditRotateKeyCommand } from '../../src/cli/audit-rotate-key.js';

/**
 * Issue 36 §11: `audit rotate-key` run as root beside a server running as the appliance's own user
 * leaves a key that server can read (the files it writes are the data directory owner's, 0600);
 * run as a user who is neither, it is refused in one line. Running as another user needs root.
 */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const mode = (path: string) => statSync(path).mode & 0o777;

describe.runIf(asRoot)('rotate-key as root, beside a server running as nobody', () => {
  let copy: CliCopy;
  let server: ChildServer | undefined;
  beforeAll(async () => {
    await ensureBuilt();
    copy = worldReadableCli();
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    copy?.remove();
  });

  const asNobody = (args: string[]) =>
    spawnSync(process.execPath, [copy.cli, ...args], {
      cwd: '/',
      uid: NOBODY,
      gid: NOBODY,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, TMPDIR: '/tmp' },
    });

  it("writes the key and the kept checkpoint as the data directory's owner, 0600, and the server signs with the new key", async () => {
    const dataDir = join(copy.root, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    chownSync(dataDir, NOBODY, NOBODY);
    const issued = asNobody(['token', 'issue', '--data', dataDir, '--role', 'it_admin', '--name', 'ops']);
    expect(issued.status, issued.stderr).toBe(0);
    const token = issued.stdout.trim();
    server = await start(dataDir, { as: { uid: NOBODY, gid: NOBODY, cli: copy.cli } });
    const call = async (path: string) => {
      const r = await request(`${server!.url}/v1/admin${path}`, { headers: { authorization: `Bearer ${token}` } });
      return { status: r.statusCode, headers: r.headers, text: await r.body.text() };
    };
    expect((await call('/audit/export?format=jsonl')).status).toBe(200);

    const logged = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await auditRotateKeyCommand(['rotate-key', '--data', dataDir])).toBe(0);
    } finally {
      logged.mockRestore();
    }
    for (const f of [KEY_FILE, SIGNED_HEAD_FILE]) {
      const st = statSync(join(dataDir, f));
      expect({ file: f, uid: st.uid, gid: st.gid, mode: mode(join(dataDir, f)) }).toEqual({
        file: f,
        uid: NOBODY,
        gid: NOBODY,
        mode: 0o600,
      });
    }
    // nothing in the directory is root's now: the database's -wal and -shm are the server's
    for (const f of readdirSync(dataDir))
      expect({ f, uid: statSync(join(dataDir, f)).uid }).toEqual({ f, uid: NOBODY });

    // the server finds the new key named in the database, reads it and signs with it
    const keys = JSON.parse((await call('/audit/checkpoints')).text).public_keys as {
      fingerprint: string;
      retired_at: string | null;
    }[];
    const current = keys.find((k) => k.retired_at === null)!.fingerprint;
    expect(keys).toHaveLength(2);
    const exported = await call('/audit/export?format=jsonl');
    expect(exported.status, exported.text).toBe(200);
    expect(JSON.parse(String(exported.headers['audit-checkpoint'])).key_fingerprint).toBe(current);
    expect(server.stderr()).not.toMatch(/EACCES/);
  }, 60_000);

  it('run by a user who may not look into the data directory, is refused in one line naming its owner', () => {
    const dataDir = join(copy.root, 'roots');
    mkdirSync(dataDir, { mode: 0o700 });
    const r = asNobody(['audit', 'rotate-key', '--data', dataDir]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `appliance-admin: cannot look into ${dataDir} (EACCES): it belongs to uid 0, not to this user (uid ${NOBODY}); run this as that user or as root\n`,
    );
    expect(r.status).toBe(1);
  });
});

describe("writing a private file into another user's data directory", () => {
  // Past the directory's own checks (0700, made private at open) no user but root gets here
  // without being its owner; the check that remains is tried as such a user.
  it('is refused in words when this user is neither root nor the owner, and nothing is written', () => {
    const dataDir = tempDir('aa-owned');
    const owner = statSync(dataDir).uid;
    const getuid = vi.spyOn(process, 'getuid').mockReturnValue(owner + 1000);
    try {
      expect(() => writeOwnedPrivateFile(dataDir, join(dataDir, 'x.json'), '{}')).toThrow(DataDirError);
      expect(() => writeOwnedPrivateFile(dataDir, join(dataDir, 'x.json'), '{}')).toThrow(
        `${dataDir} belongs to uid ${owner}, not to this user (uid ${owner + 1000}): run this as that user, so that the appliance can read what it writes`,
      );
    } finally {
      getuid.mockRestore();
    }
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
