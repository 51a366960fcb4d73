import { beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DB_FILE } from '../../src/server/db/open.js';
import { tempDir } from '../helpers/fixtures.js';
import { makeCertificates } from '../helpers/tls.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { ensureBuilt } from '../helpers/child-server.js';

// the built CLI (bin/appliance-admin.cjs), as a user runs it
beforeAll(ensureBuilt, 180_000);

const mode = (path: string) => statSync(path).mode & 0o777;

/** Spawned under umask 022, the usual default: what the CLI itself creates decides the modes. */
function withUmask022<T>(fn: () => T): T {
  const old = process.umask(0o022);
  try {
    return fn();
  } finally {
    process.umask(old);
  }
}

describe('serve: the data directory and database files', () => {
  it('serve --demo creates a missing DIR (and its missing parent) with mode 0700 and the database files 0600', async () => {
    const dir = join(tempDir('aa-serve-mode'), 'new', 'data');
    const run = withUmask022(() =>
      spawnCli(['serve', '--demo', '--data', dir, '--port', '0', '--host', '127.0.0.1', '--log-level', 'warn']),
    );
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${run.stderr()}`)), 20_000);
        run.child.stdout!.on('data', () => {
          if (/listening on http:\/\//.test(run.stdout())) {
            clearTimeout(timer);
            resolve();
          }
        });
        void run.done.then(() => reject(new Error(`serve exited: ${run.stderr()}`)));
      });
      expect(mode(dir)).toBe(0o700);
      expect(mode(join(dir, '..'))).toBe(0o700);
      const dbFiles = readdirSync(dir).filter((f) => f.startsWith(DB_FILE));
      expect(dbFiles).toEqual(expect.arrayContaining([DB_FILE, `${DB_FILE}-wal`]));
      for (const f of dbFiles) expect(mode(join(dir, f)), f).toBe(0o600);
    } finally {
      run.child.kill('SIGTERM');
      await run.done;
    }
  });

  it('an existing DIR open to group or others is made private (0750 becomes 0700); the database made in it is 0600', async () => {
    const dir = join(tempDir('aa-serve-mode'), 'data');
    mkdirSync(dir);
    chmodSync(dir, 0o750);
    const r = await withUmask022(() => runCli(['token', 'issue', '--data', dir, '--role', 'auditor', '--name', 'a']));
    expect(r.code, r.stderr).toBe(0);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, DB_FILE))).toBe(0o600);
  });
});

/** One line on stderr, the start-up errors' exit code (2 for the command line, 1 for the data directory), no stack trace, nothing on stdout. */
function expectOneLine(r: { code: number | null; stdout: string; stderr: string }, line: RegExp, code = 2) {
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n')).toHaveLength(2); // the line, and the empty string after its \n
  expect(r.stderr).toMatch(line);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.code).toBe(code);
}

describe.concurrent('serve: start-up errors are one line and exit 2', () => {
  let dir: string;
  let certFile: string;
  let keyFile: string;
  let otherKeyFile: string;
  const data = () => join(tempDir('aa-serve-err'), 'data');

  beforeAll(async () => {
    dir = tempDir('aa-serve-tls');
    const [one, two] = await Promise.all([makeCertificates(), makeCertificates('another CA')]);
    certFile = join(dir, 'cert.pem');
    keyFile = join(dir, 'key.pem');
    otherKeyFile = join(dir, 'other-key.pem');
    writeFileSync(certFile, one.cert);
    writeFileSync(keyFile, one.key);
    writeFileSync(otherKeyFile, two.key);
  });

  it('--tls-cert and --tls-key swapped: names the file and the likely mix-up', async () => {
    const r = await runCli(['serve', '--data', data(), '--port', '0', '--tls-cert', keyFile, '--tls-key', certFile]);
    expectOneLine(
      r,
      new RegExp(
        `^appliance-admin: --tls-cert ${keyFile} holds no PEM certificate \\(it holds a private key: are --tls-cert and --tls-key swapped\\?\\)\n$`,
      ),
    );
  });

  it("a key that is not the certificate's: names both files", async () => {
    const r = await runCli([
      'serve',
      '--data',
      data(),
      '--port',
      '0',
      '--tls-cert',
      certFile,
      '--tls-key',
      otherKeyFile,
    ]);
    expectOneLine(
      r,
      new RegExp(
        `^appliance-admin: --tls-key ${otherKeyFile} is not the key of the certificate in --tls-cert ${certFile}\n$`,
      ),
    );
  });

  it('a --tls-key file that holds no key', async () => {
    const r = await runCli(['serve', '--data', data(), '--port', '0', '--tls-cert', certFile, '--tls-key', certFile]);
    expectOneLine(
      r,
      new RegExp(`^appliance-admin: --tls-key ${certFile} holds no PEM private key \\(it holds a certificate\\)\n$`),
    );
  });

  it('--host with an address this machine does not have (EADDRNOTAVAIL)', async () => {
    const r = await runCli(['serve', '--data', data(), '--port', '0', '--host', '203.0.113.9', '--log-level', 'warn']);
    expectOneLine(r, /^appliance-admin: cannot listen on 203\.0\.113\.9: it is not an address of this machine\n$/);
  });

  it('--host with a name that does not resolve (ENOTFOUND)', async () => {
    const r = await runCli([
      'serve',
      '--data',
      data(),
      '--port',
      '0',
      '--host',
      'nosuchhost.invalid',
      '--log-level',
      'warn',
    ]);
    expectOneLine(
      r,
      /^appliance-admin: cannot listen on nosuchhost\.invalid: no such host \((ENOTFOUND|EAI_AGAIN|EAI_NONAME)\)\n$/,
    );
  });

  it('a database file that is not one: exit 1 like an unwritable data directory, naming the file', async () => {
    const target = data();
    mkdirSync(target);
    writeFileSync(join(target, DB_FILE), 'not a database, but long enough to have a header: '.repeat(4));
    const r = await runCli(['serve', '--data', target, '--port', '0']);
    expectOneLine(
      r,
      new RegExp(
        `^appliance-admin: cannot open the database ${join(target, DB_FILE)}: file is not a database \\(SQLITE_NOTADB\\)\n$`,
      ),
      1,
    );
  });

  it('nothing was written for a TLS mistake, with --demo either: the data directory is not even created', async () => {
    const target = data();
    await runCli(['serve', '--demo', '--data', target, '--port', '0', '--tls-cert', keyFile, '--tls-key', certFile]);
    expect(existsSync(target)).toBe(false);
  });
});
