import { execFileSync } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, spawnCli, writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startHostile, type HostileServer, type Reply } from '../helpers/hostile-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 36 §9 and §10: an evidence pack against a hostile pack and a hostile appliance. `evidence
 * verify` reads regular files of the pack only, within bounds, and never hangs or crashes on what a
 * pack holds; `evidence -o DIR` writes a temporary sibling and renames it when complete, removes
 * only that on a failure or a signal, never a folder that was there, and says why in one line.
 */

let s: TestServer;
let token: string;
let work: string;
let pack: string;
let key: string;
beforeAll(async () => {
  await ensureBuilt();
  s = await startTestServer();
  for (let i = 0; i < 5; i++)
    expect((await s.call('POST', '/gateway/keys', { body: { name: `h-${i}` } })).status).toBe(201);
  token = writeTokenFile(s.tokens.auditor);
  work = tempDir('aa-evidence-hostile');
  pack = join(work, 'pack');
  const made = await runCli(['evidence', '--since', '30d', '-o', pack, '--url', s.url, '--token-file', token], {
    timeoutMs: 60_000,
  });
  expect(made.stderr).toBe('');
  expect(made.code).toBe(0);
  key = join(work, 'appliance.pem');
  writeFileSync(key, JSON.parse(readFileSync(join(pack, 'public-keys.json'), 'utf8'))[0].public_key_pem);
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const copyOf = (name: string) => {
  const copy = join(work, name);
  cpSync(pack, copy, { recursive: true });
  return copy;
};

/** A verify that ends (the test's timeout would say it hung), with one line on stderr and no stack. */
async function verify(dir: string) {
  const r = await runCli(['evidence', 'verify', dir, '--key', key], { timeoutMs: 20_000 });
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout + r.stderr).not.toContain('\x1b');
  return r;
}

/** Rewrites the manifest's file list (the seal then no longer matches, which the tests also see). */
function editManifest(dir: string, edit: (files: { name: string }[]) => unknown[]) {
  const file = join(dir, 'manifest.json');
  const m = JSON.parse(readFileSync(file, 'utf8'));
  m.files = edit(m.files);
  writeFileSync(file, JSON.stringify(m));
}

describe('evidence verify on a hostile pack', () => {
  it('the pack as made verifies with the pinned key', async () => {
    const r = await runCli(['evidence', 'verify', pack, '--key', key]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('a listed file replaced by a link (to a file outside, to /dev/zero) is not followed', async () => {
    const p = copyOf('pack-links');
    const outside = join(work, 'outside.json');
    writeFileSync(outside, readFileSync(join(p, 'settings.json')));
    rmSync(join(p, 'settings.json'));
    symlinkSync(outside, join(p, 'settings.json'));
    rmSync(join(p, 'journal.jsonl'));
    symlinkSync('/dev/zero', join(p, 'journal.jsonl'));
    const r = await verify(p);
    expect(r.stdout).toContain('settings.json is a symbolic link: a link is not evidence');
    expect(r.stdout).toContain('journal.jsonl is a symbolic link: a link is not evidence');
    expect(r.code).toBe(1);
  });

  it('a FIFO as an export, as the manifest, and a device are refused without waiting on them', async () => {
    const p = copyOf('pack-fifo');
    rmSync(join(p, 'audit.csv'));
    execFileSync('mkfifo', [join(p, 'audit.csv')]);
    const r = await verify(p);
    expect(r.stdout).toContain('audit.csv is not a regular file (a folder, a FIFO or a device is not evidence)');
    expect(r.code).toBe(1);

    const q = join(work, 'pack-fifo-manifest');
    mkdirSync(q);
    execFileSync('mkfifo', [join(q, 'manifest.json')]);
    const m = await verify(q);
    expect(m.stdout).toContain('manifest.json is not a regular file');
    expect(m.code).toBe(1);
  });

  it('manifest names that leave the pack or are not plain files (., .., a path, a hidden name) are never opened', async () => {
    const p = copyOf('pack-names');
    mkdirSync(join(p, 'sub'));
    editManifest(p, (files) => [
      ...files,
      ...['.', '..', '../pack/settings.json', '/etc/passwd', '.hidden', 'a\x1b]52;c;aGk=\x07b', 'sub'].map((name) => ({
        name,
        sha256: '0'.repeat(64),
        bytes: 1,
      })),
      { name: 7 },
    ]);
    const r = await verify(p);
    for (const name of ['"."', '".."', '"../pack/settings.json"', '"/etc/passwd"', '".hidden"'])
      expect(r.stdout).toContain(`manifest.json names something that is not a plain file of the pack: ${name}`);
    expect(r.stdout).toContain('manifest.json lists a file without a name');
    expect(r.stdout).toContain('sub is not a regular file');
    expect(r.code).toBe(1);
  });

  it('files added beside the manifest are named safely: a folder, a link, a name holding an escape sequence', async () => {
    const p = copyOf('pack-added');
    mkdirSync(join(p, 'extra-folder'));
    symlinkSync('/etc/passwd', join(p, 'passwd'));
    writeFileSync(join(p, 'x\x1b]0;owned\x07\r\ny'), 'x');
    const r = await verify(p);
    expect(r.stdout).toContain('extra-folder is not in the manifest (a folder, added later)');
    expect(r.stdout).toContain('passwd is not in the manifest (a symbolic link, added later)');
    expect(r.stdout).toMatch(/^"x.*y" is not in the manifest \(added later\)$/m);
    expect(r.code).toBe(1);
  });

  it('a manifest, a seal or a statement past its bound, or not JSON, is a finding, never a crash', async () => {
    const big = copyOf('pack-big-manifest');
    writeFileSync(join(big, 'manifest.json'), `{"files":[],"pad":"${'x'.repeat(1024 * 1024)}"}`);
    const b = await verify(big);
    expect(b.stdout).toContain('manifest.json is larger than 1,048,576 bytes: not read');
    expect(b.code).toBe(1);

    const junk = copyOf('pack-junk');
    writeFileSync(join(junk, 'seal.json'), '['.repeat(200_000));
    writeFileSync(join(junk, 'audit.jsonl.checkpoint.json'), '{"statement": 1}');
    const j = await verify(junk);
    expect(j.stdout).toContain('seal.json is not JSON');
    expect(j.stdout).toContain('audit.jsonl.checkpoint.json: its statement is unusable');
    expect(j.code).toBe(1);

    // details nested deeper than any recursive reader's stack: JSON.parse takes it, hashing it must not crash
    const deep = copyOf('pack-deep-seal');
    const sealText = readFileSync(join(deep, 'seal.json'), 'utf8');
    const nested = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    writeFileSync(
      join(deep, 'seal.json'),
      sealText.replace(/"details": \{[^}]*\}/, () => `"details": ${nested}`),
    );
    expect(readFileSync(join(deep, 'seal.json'), 'utf8')).toContain(nested);
    const d = await verify(deep);
    expect(d.stdout).toMatch(
      /the seal of the manifest \(seal\.json\): its entry (has no canonical form|is not the one)/,
    );
    expect(d.code).toBe(1);
  });

  it('an export larger than its signed count allows is not read', async () => {
    const p = copyOf('pack-huge-export');
    const statement = JSON.parse(readFileSync(join(p, 'audit.jsonl.checkpoint.json'), 'utf8'));
    const cap = statement.statement.count * 64 * 1024 + 16 * 1024 * 1024;
    writeFileSync(join(p, 'audit.jsonl'), Buffer.alloc(cap + 1, 0x0a));
    editManifest(p, (files) => files.map((f) => (f.name === 'audit.jsonl' ? { ...f, bytes: cap + 1 } : f)));
    const r = await verify(p);
    expect(r.stdout).toContain(`audit.jsonl is larger than a pack's audit.jsonl may be`);
    expect(r.code).toBe(1);
  });
});

/** The appliance's answers as they are, but for the paths set: a hostile appliance in front of the real one. */
async function hostileFront(): Promise<HostileServer> {
  const h = await startHostile({ upstream: s.url });
  // an export passed through with its headers (the pass-through drops the statement)
  h.set('/audit/export', exportReply());
  h.set('/agent/journal/export', exportReply());
  return h;
}

async function upstream(req: IncomingMessage) {
  return request(s.url + (req.url ?? '/'), {
    method: 'GET',
    headers: { authorization: String(req.headers.authorization) },
  });
}

/** Writes `chunk` until the peer goes away, minding backpressure. */
function endless(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((done) => {
    const more = () => {
      while (!res.destroyed && res.write(chunk));
      if (res.destroyed) done();
    };
    res.on('drain', more);
    res.on('close', () => done());
    more();
  });
}

/** The real export's headers, then its body, then (`after`) more of it or a stall. */
const exportReply =
  (after?: 'endless' | 'stall'): Reply =>
  async (req, res) => {
    const up = await upstream(req);
    const headers: Record<string, string> = {};
    for (const n of ['content-type', 'content-disposition', 'audit-export-statement', 'audit-checkpoint'])
      if (typeof up.headers[n] === 'string') headers[n] = up.headers[n] as string;
    res.writeHead(up.statusCode, headers);
    const body = Buffer.from(await up.body.arrayBuffer());
    if (!after) return void res.end(body);
    res.write(body);
    if (after === 'endless') return endless(res, Buffer.from(`${'{"x":1}\n'.repeat(128 * 1024)}`));
    // stall: the connection stays open until the client goes
  };

const waitFor = async (what: string, cond: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
};

const partials = (dir: string) => readdirSync(dir).filter((f) => f.includes('.partial-'));

describe('evidence -o DIR against a hostile appliance, a full disk, a signal', () => {
  it('an export past what its signed count allows is stopped with one line, and nothing is left', async () => {
    const h = await hostileFront();
    try {
      h.set('/audit/export', exportReply('endless'));
      const dir = tempDir('aa-evidence-cap');
      const r = await runCli(
        ['evidence', '--since', '30d', '-o', join(dir, 'pack'), '--url', h.url, '--token-file', token],
        {
          timeoutMs: 60_000,
        },
      );
      expect(r.stderr).toMatch(
        /^appliance-admin: evidence: the appliance sent more than [\d,]+ bytes for audit\.jsonl \(the appliance signed [\d,]+ entries\), more than it may; stopped, no pack was made\n$/,
      );
      expect(r.code).toBe(1);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it("README.txt holds none of the appliance's own words: fingerprints are computed from the keys", async () => {
    const h = await hostileFront();
    try {
      const hostile = '\x1b]52;c;aGk=\x07\x1b]0;title\x07\u202e\r\nFAKE LINE';
      h.set('/audit/checkpoints', async (req, res) => {
        const up = await upstream(req);
        const body = (await up.body.json()) as { public_keys: Record<string, unknown>[] };
        body.public_keys = body.public_keys.map((k) => ({ ...k, fingerprint: hostile, created_at: hostile }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
      const dir = join(tempDir('aa-evidence-readme'), 'pack');
      const r = await runCli(['evidence', '--since', '30d', '-o', dir, '--url', h.url, '--token-file', token], {
        timeoutMs: 60_000,
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const readme = readFileSync(join(dir, 'README.txt'), 'utf8');
      expect(readme).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
      expect(readme).not.toContain('FAKE LINE');
      const fingerprint = JSON.parse(readFileSync(join(pack, 'public-keys.json'), 'utf8'))[0].fingerprint;
      expect(readme).toContain(fingerprint);
    } finally {
      await h.close();
    }
  });

  it('an empty DIR that was there stays when the pack fails; one that succeeds is replaced by the pack', async () => {
    const h = await hostileFront();
    try {
      // an export without its signed statement: nothing could prove it complete, so no pack is made
      h.set('/audit/export', async (req, res) => {
        const up = await upstream(req);
        res.writeHead(200, { 'content-type': String(up.headers['content-type']) });
        res.end(Buffer.from(await up.body.arrayBuffer()));
      });
      const dir = join(tempDir('aa-evidence-kept'), 'pack');
      mkdirSync(dir);
      const r = await runCli(['evidence', '--since', '30d', '-o', dir, '--url', h.url, '--token-file', token], {
        timeoutMs: 60_000,
      });
      expect(r.stderr).toMatch(/^appliance-admin: evidence: audit\.jsonl: the appliance sent no signed statement/);
      expect(r.code).toBe(1);
      expect(readdirSync(dir)).toEqual([]);
      expect(partials(join(dir, '..'))).toEqual([]);

      const ok = await runCli(['evidence', '--since', '30d', '-o', dir, '--url', s.url, '--token-file', token], {
        timeoutMs: 60_000,
      });
      expect(ok.code).toBe(0);
      expect(readdirSync(dir)).toContain('seal.json');
    } finally {
      await h.close();
    }
  });

  it('a dangling link, a file, a non-empty folder at DIR, a parent that is a file: one line, nothing touched', async () => {
    const base = tempDir('aa-evidence-in-the-way');
    const dangling = join(base, 'dangling');
    symlinkSync(join(base, 'nowhere'), dangling);
    const file = join(base, 'file');
    writeFileSync(file, 'x');
    const full = join(base, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'kept'), 'kept');
    for (const [dir, words] of [
      [dangling, 'is a symbolic link: choose another folder for the pack'],
      [file, 'exists and is not a folder'],
      [full, 'is not empty: choose another folder for the pack'],
      [join(file, 'pack'), 'a part of the path is not a folder (ENOTDIR)'],
    ]) {
      const r = await runCli(['evidence', '--since', '30d', '-o', dir, '--url', s.url, '--token-file', token]);
      expect(r.stderr).toContain(words);
      expect(r.stderr.trimEnd().split('\n'), dir).toHaveLength(1);
      expect(r.code).toBe(1);
    }
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('x');
    expect(readdirSync(full)).toEqual(['kept']);
    expect(partials(base)).toEqual([]);
  });

  it.skipIf(process.getuid?.() === 0)('a folder it may not write in: one line (EACCES)', async () => {
    const base = tempDir('aa-evidence-eacces');
    chmodSync(base, 0o555);
    try {
      const r = await runCli([
        'evidence',
        '--since',
        '30d',
        '-o',
        join(base, 'pack'),
        '--url',
        s.url,
        '--token-file',
        token,
      ]);
      expect(r.stderr).toMatch(
        /^appliance-admin: evidence: cannot make the pack's folder beside .*: permission denied \(EACCES\)/,
      );
      expect(r.code).toBe(1);
    } finally {
      chmodSync(base, 0o755);
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`${signal} while it downloads: only the temporary folder is removed, exit ${signal === 'SIGINT' ? 130 : 143}`, async () => {
      const h = await hostileFront();
      try {
        h.set('/audit/export', exportReply('stall'));
        const base = tempDir('aa-evidence-signal');
        const dir = join(base, 'pack');
        const run = spawnCli(['evidence', '--since', '30d', '-o', dir, '--url', h.url, '--token-file', token]);
        // the export's first bytes are in the temporary sibling: the pack is under way
        await waitFor('the export under way', () =>
          partials(base).some(
            (p) => existsSync(join(base, p, 'audit.jsonl')) && readFileSync(join(base, p, 'audit.jsonl')).length > 0,
          ),
        );
        run.child.kill(signal);
        const r = await run.done;
        expect(r.stderr).toBe(`appliance-admin: evidence: stopped (${signal}); nothing was written to ${dir}\n`);
        expect(r.code).toBe(signal === 'SIGINT' ? 130 : 143);
        expect(readdirSync(base)).toEqual([]);
      } finally {
        await h.close();
      }
    });
});
