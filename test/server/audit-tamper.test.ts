import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/server/db/open.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { rehash, type Entry } from '../helpers/audit-chain.js';
import { tamper } from '../helpers/tamper.js';
import { SIGNED_HEAD_FILE } from '../../src/server/audit-chain/signed-head.js';
import { statementFileOf } from '../../src/audit-chain/statement-file.js';

/**
 * The tamper suite (issue 28 §7): a real server on a real database, the trail changed directly in
 * SQLite as someone with the data directory could, then found by the offline verifier (on an
 * export) and the live one (--url). The chain itself is the server's (task G): until the audit
 * table has its `hash` column, the parts that need it are skipped.
 */
const chainReady = (() => {
  const db = openDatabase(tempDir('aa-chain-probe'));
  try {
    return db.prepare("SELECT 1 FROM pragma_table_info('audit') WHERE name = 'hash'").get() !== undefined;
  } finally {
    db.close();
  }
})();

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = tempDir('aa-tamper');
}, 120_000);

/** A server with a short trail of real mutations; the secrets they returned, for the scans. */
async function serverWithHistory(): Promise<{ s: TestServer; secrets: string[] }> {
  const s = await startTestServer();
  const secrets: string[] = [];
  for (let i = 0; i < 8; i++) {
    const r = await s.call('POST', '/gateway/keys', { body: { name: `tamper-${i}` } });
    expect(r.status).toBe(201);
    secrets.push(r.json.secret);
  }
  expect((await s.call('POST', '/models/activate', { role: 'auditor', body: { model_id: 'x' } })).status).toBe(403);
  return { s, secrets };
}

/** The export and its statement file, as `export audit -o FILE` leaves them. */
async function exportTrail(
  s: TestServer,
  name: string,
): Promise<{ file: string; checkpoint: Record<string, unknown> }> {
  const r = await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
  expect(r.status).toBe(200);
  const checkpoint = JSON.parse(String(r.headers['audit-checkpoint']));
  const statement = JSON.parse(String(r.headers['audit-export-statement']));
  const file = join(dir, name);
  writeFileSync(file, r.text);
  writeFileSync(`${file}.checkpoint.json`, JSON.stringify({ ...statement, checkpoint }));
  return { file, checkpoint };
}

/**
 * What someone with the whole data directory can do beyond the database: remove the last checkpoint
 * the appliance signed, kept beside its key, and the checkpoints in the table, so that the appliance
 * signs a rewritten trail as its own. Only a checkpoint kept by an auditor then finds it.
 */
function forgetSignedHead(s: TestServer): void {
  rmSync(join(s.dataDir, SIGNED_HEAD_FILE), { force: true });
  tamper(s.server.db, 'DELETE FROM audit_checkpoints');
}

/** The appliance refuses to sign a trail that does not extend its last checkpoint, and says so. */
async function expectRefused(s: TestServer): Promise<void> {
  const r = await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
  expect(r.status).toBe(500);
  expect(r.json.detail).toMatch(/^the appliance will not sign its audit trail: /);
  const d = await s.call('GET', '/deployment', { role: 'auditor' });
  const chain = d.json.components.find((c: { name: string }) => c.name === 'audit-chain');
  expect(chain).toMatchObject({ status: 'down' });
  expect(chain.message).toMatch(/does not extend the last checkpoint this appliance signed/);
  expect(d.json.status).toBe('degraded');
}

/** The appliance's public key, as an auditor keeps it from an earlier visit. */
async function keyFile(s: TestServer): Promise<string> {
  const r = await s.call('GET', '/audit/checkpoints', { role: 'auditor' });
  expect(r.status).toBe(200);
  const file = join(dir, `key-${Date.now()}-${Math.random()}.pem`);
  writeFileSync(file, r.json.public_keys[0].public_key_pem);
  return file;
}

const live = (s: TestServer, extra: string[] = []) =>
  runCli(['audit', 'verify', '--url', s.url, '--token-file', writeTokenFile(s.tokens.auditor), ...extra]);

describe.skipIf(!chainReady)('the tamper suite: each change is found offline and live', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  async function scenario(change: (s: TestServer, kept: Record<string, unknown>) => void | Promise<void>) {
    const { s } = await serverWithHistory();
    servers.push(s);
    const key = await keyFile(s);
    const kept = (await exportTrail(s, `kept-${servers.length}.jsonl`)).checkpoint;
    const keptFile = join(dir, `kept-${servers.length}.json`);
    writeFileSync(keptFile, JSON.stringify(kept));
    await change(s, kept);
    const { file } = await exportTrail(s, `after-${servers.length}.jsonl`);
    const offline = await runCli(['audit', 'verify', file, '--key', key, '--since', keptFile]);
    const online = await live(s, ['--key', key, '--since', keptFile]);
    return { offline, online };
  }

  it('an untouched trail verifies clean, offline and live', async () => {
    const { offline, online } = await scenario(() => undefined);
    expect(offline.stdout).toMatch(/^verified: the whole trail, entries #1–#\d+ \(\d+\), complete and unaltered/);
    expect(offline.code).toBe(0);
    expect(online.stdout).toMatch(/^verified: the whole trail, entries #1–#\d+/);
    expect(online.code).toBe(0);
  });

  it('one field of one entry changed', async () => {
    const { offline, online } = await scenario((s) =>
      tamper(s.server.db, "UPDATE audit SET outcome = 'denied' WHERE seq = 3"),
    );
    for (const r of [offline, online]) {
      expect(r.stdout).toContain('entry #3: hash does not match its contents');
      expect(r.code).toBe(1);
    }
  });

  it('one entry deleted', async () => {
    const { offline, online } = await scenario((s) => tamper(s.server.db, 'DELETE FROM audit WHERE seq = 4'));
    for (const r of [offline, online]) {
      expect(r.stdout).toContain('entry #4 missing');
      expect(r.code).toBe(1);
    }
  });

  it('two entries swapped', async () => {
    const { offline, online } = await scenario((s) =>
      tamper(
        s.server.db,
        'UPDATE audit SET seq = -5 WHERE seq = 5',
        'UPDATE audit SET seq = 5 WHERE seq = 6',
        'UPDATE audit SET seq = 6 WHERE seq = -5',
      ),
    );
    for (const r of [offline, online]) {
      expect(r.stdout).toContain('entry #5: hash does not match its contents');
      expect(r.stdout).toContain('entry #6: hash does not match its contents');
      expect(r.code).toBe(1);
    }
  });

  it('the tail cut: the appliance refuses to sign it; with its data directory too, the kept checkpoint finds it', async () => {
    const { offline, online } = await scenario(async (s, kept) => {
      tamper(s.server.db, `DELETE FROM audit WHERE seq > ${Number(kept.seq) - 3}`);
      await expectRefused(s);
      forgetSignedHead(s);
    });
    // the appliance grows the trail again from the cut; the kept checkpoint no longer matches
    for (const r of [offline, online]) {
      expect(r.stdout).toMatch(/the trail was (cut|rewritten) since/);
      expect(r.code).toBe(1);
    }
  });

  it('the whole trail replaced by a consistently re-hashed forgery', async () => {
    const forge = async (s: TestServer) => {
      const r = await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
      const entries = r.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Entry);
      const forged = rehash(entries.map((e) => (e.seq === 2 ? { ...e, actor: { subject: 'nobody', role: null } } : e)));
      const db = s.server.db;
      tamper(s.server.db);
      const update = db.prepare(
        'UPDATE audit SET actor_subject = ?, actor_role = ?, prev_hash = ?, hash = ? WHERE seq = ?',
      );
      db.transaction(() => {
        for (const e of forged) {
          const a = e.actor as { subject: string; role: string | null };
          update.run(a.subject, a.role, e.prev_hash, e.hash, e.seq);
        }
      })();
      // issue 36 §5: the appliance does not sign the forged head, and a live verify says why
      await expectRefused(s);
      const refused = await live(s);
      expect(refused.stdout).toMatch(
        /the appliance will not sign its audit trail: entry #\d+ is not what this appliance signed/,
      );
      expect(refused.code).toBe(1);
      // …unless its own record of what it signed and its checkpoints are removed too
      forgetSignedHead(s);
    };
    const { offline, online } = await scenario(forge);
    // then only a checkpoint the auditor kept finds it
    for (const r of [offline, online]) {
      expect(r.stdout).toContain('is no longer what the kept checkpoint recorded: the trail was rewritten since');
      expect(r.code).toBe(1);
    }
  });
});

describe('an evidence pack', () => {
  let s: TestServer;
  let secrets: string[];
  let pack: string;
  let made: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    ({ s, secrets } = await serverWithHistory());
    pack = join(dir, 'pack');
    // an auditor makes it: read-only is enough
    made = await runCli(
      ['evidence', '--since', '30d', '-o', pack, '--url', s.url, '--token-file', writeTokenFile(s.tokens.auditor)],
      { timeoutMs: 60_000 },
    );
  }, 90_000);
  afterAll(async () => {
    await s?.close();
  });

  it('holds every file, each listed in its manifest with its sha256 and size', () => {
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const files = readdirSync(pack).sort();
    for (const f of [
      'audit.jsonl',
      'audit.csv',
      'audit.jsonl.checkpoint.json',
      'audit.csv.checkpoint.json',
      'public-keys.json',
      'journal.jsonl',
      'keys.jsonl',
      'role-matrix.json',
      'settings.json',
      'deployment.json',
      'install-plan.json',
      'models.json',
      'routing.json',
      'budgets.json',
      'manifest.json',
      'seal.json',
      'README.txt',
    ])
      expect(files).toContain(f);
    const manifestBytes = readFileSync(join(pack, 'manifest.json'));
    const manifest = JSON.parse(manifestBytes.toString('utf8'));
    expect(manifest.made_by).toEqual({ subject: 'aude-auditor', role: 'auditor' });
    expect(manifest.appliance.url).toBe(s.url);
    for (const f of manifest.files) {
      const bytes = readFileSync(join(pack, f.name));
      expect(f.bytes).toBe(bytes.length);
      expect(f.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    expect(manifest.files.map((f: { name: string }) => f.name).sort()).toEqual(
      files.filter((f) => f !== 'manifest.json' && f !== 'seal.json'),
    );
    // the seal: the appliance's audit.seal entry of the manifest's sha256, and the checkpoint it signed of it
    const seal = JSON.parse(readFileSync(join(pack, 'seal.json'), 'utf8'));
    expect(seal.entry).toMatchObject({
      action: 'audit.seal',
      actor: { subject: 'aude-auditor', role: 'auditor' },
      details: { sha256: createHash('sha256').update(manifestBytes).digest('hex'), purpose: 'evidence-pack' },
    });
    expect(seal.checkpoint).toMatchObject({ seq: seal.entry.seq, hash: seal.entry.hash });
    // a pack is private to its maker, and nothing of its making is left beside it
    expect(statSync(pack).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir).filter((f) => f.includes('.partial-'))).toEqual([]);
  });

  it('making it is audited: its audit and journal exports say purpose evidence', async () => {
    const r = await s.call('GET', '/audit?limit=20&action=audit.export');
    const evidence = r.json.data.filter((e: { details: { purpose?: string } }) => e.details.purpose === 'evidence');
    expect(evidence.length).toBe(2);
    expect(evidence[0].actor).toEqual({ subject: 'aude-auditor', role: 'auditor' });
    const journal = (await s.call('GET', '/audit?limit=20&action=journal.export')).json.data;
    expect(journal.map((e: { details: { purpose?: string } }) => e.details.purpose)).toEqual(['evidence']);
    // the summary names both exports of the trail, each with its own checkpoint, and the seal
    expect(made.stdout).toMatch(
      /in two exports: audit\.jsonl \(checkpoint #[\d,]+\) and audit\.csv \(checkpoint #[\d,]+\), sealed at #[\d,]+/,
    );
    const seals = (await s.call('GET', '/audit?limit=20&action=audit.seal')).json.data;
    expect(seals).toHaveLength(1);
    expect(seals[0]).toMatchObject({ actor: { subject: 'aude-auditor', role: 'auditor' }, outcome: 'success' });
  });

  it('an export with another purpose is refused, and nothing is audited or exported', async () => {
    const before = (await s.call('GET', '/audit?limit=1')).json.data[0].id;
    const r = await s.call('GET', '/audit/export?format=jsonl&purpose=curiosity', { role: 'auditor' });
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/problem\+json/);
    expect((await s.call('GET', '/audit?limit=1')).json.data[0].id).toBe(before);
  });

  it('the role matrix is the server rule: an auditor may read, not change', () => {
    const m = JSON.parse(readFileSync(join(pack, 'role-matrix.json'), 'utf8'));
    const revoke = m.routes.find((r: { route: string }) => r.route === 'revokeKey');
    expect(revoke.allowed).toEqual({ it_admin: true, app_owner: true, auditor: false });
    const list = m.routes.find((r: { route: string }) => r.route === 'listAudit');
    expect(list.allowed).toEqual({ it_admin: true, app_owner: true, auditor: true });
  });

  it('holds no secret and no token (scanned)', () => {
    const all = readdirSync(pack)
      .map((f) => readFileSync(join(pack, f), 'utf8'))
      .join('\n');
    expect(secrets).toHaveLength(8);
    for (const secret of secrets) expect(all).not.toContain(secret);
    expect(all).not.toContain(s.tokens.auditor);
    expect(all).not.toMatch(/agk_[A-Za-z0-9_-]{40}|aat_[A-Za-z0-9_-]{40}|PRIVATE KEY/);
    // the pack does name the keys: the inventory is there, only the secrets are not
    const inventory = readFileSync(join(pack, 'keys.jsonl'), 'utf8').trimEnd().split('\n');
    expect(inventory.map((l) => (JSON.parse(l) as { id: string }).id).length).toBeGreaterThanOrEqual(8);
  });

  it.skipIf(!chainReady)('evidence verify passes on the pack as made', async () => {
    const r = await runCli(['evidence', 'verify', pack]);
    expect(r.stdout).toContain('the seal verifies, every file matches its manifest and the audit chain verifies');
    expect(r.stdout).toMatch(
      /manifest\.json is sealed by the appliance's audit entry #[\d,]+ of \S+, made by aude-auditor/,
    );
    expect(r.stdout).toContain('the key was not pinned');
    // verified, but with the pack's own key: not proof until that key is compared out of band
    expect(r.code).toBe(4);
    // with the key pinned: verified
    const key = join(dir, 'pack.pem');
    writeFileSync(key, JSON.parse(readFileSync(join(pack, 'public-keys.json'), 'utf8'))[0].public_key_pem);
    const pinned = await runCli(['evidence', 'verify', pack, '--key', key]);
    expect(pinned.stderr).toBe('');
    expect(pinned.code).toBe(0);
    // each export of the pack is checked by audit verify as it stands, its checkpoint found by name
    for (const file of ['audit.jsonl', 'audit.csv']) {
      const one = await runCli(['audit', 'verify', join(pack, file), '--key', key]);
      expect(one.stdout).toMatch(
        /^verified: every entry from \S+ to the head \(#[\d,]+\), entries #1–#[\d,]+ \([\d,]+\), complete/,
      );
      expect(one.code).toBe(0);
    }
  });

  it.skipIf(!chainReady)('an entry deleted from the middle of the pack (manifest re-hashed) is found', async () => {
    const cut = join(dir, 'pack-cut');
    cpSync(pack, cut, { recursive: true });
    const trail = join(cut, 'audit.jsonl');
    const lines = readFileSync(trail, 'utf8').trimEnd().split('\n');
    const gone = JSON.parse(lines[4]).seq as number;
    writeFileSync(trail, `${lines.filter((_, i) => i !== 4).join('\n')}\n`);
    const manifestFile = join(cut, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    for (const f of manifest.files) {
      const bytes = readFileSync(join(cut, f.name));
      Object.assign(f, { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
    }
    writeFileSync(manifestFile, JSON.stringify(manifest));
    const key = join(dir, 'pack-cut.pem');
    writeFileSync(
      key,
      (await s.call('GET', '/audit/checkpoints', { role: 'auditor' })).json.public_keys[0].public_key_pem,
    );
    const whole = await runCli(['evidence', 'verify', cut, '--key', key]);
    expect(whole.stdout).toContain(`audit.jsonl: entry #${gone} missing`);
    // the manifest re-hashed is no longer the one the appliance sealed
    expect(whole.stdout).toContain('the manifest was changed after it was sealed');
    expect(whole.code).toBe(1);
    // the plain command: it finds audit.jsonl.checkpoint.json beside the file
    const one = await runCli(['audit', 'verify', trail, '--key', key]);
    expect(one.stdout).toContain(`entry #${gone} missing`);
    expect(one.code).toBe(1);
  });

  it('credential-like text typed into a name does not stop a pack; a real secret does, by file and line', async () => {
    const t = await startTestServer();
    try {
      const token = writeTokenFile(t.tokens.auditor);
      const pack = (name: string) =>
        runCli(['evidence', '--since', '30d', '-o', join(dir, name), '--url', t.url, '--token-file', token], {
          timeoutMs: 60_000,
        });
      const typed = 'note: Bearer abcdefghijklmnopqrstuvwxyz';
      expect((await t.call('POST', '/gateway/keys', { body: { name: typed } })).status).toBe(201);
      const made = await pack('pack-typed');
      expect(made.stderr).toBe('');
      expect(made.code).toBe(0);
      expect(readFileSync(join(dir, 'pack-typed', 'keys.jsonl'), 'utf8')).toContain(typed);

      // a real secret the appliance made, pasted where it should never be: the API refuses it as a name (400), so it
      // is planted in the database, as an older version or someone with the data directory could have left it
      const real = (await t.call('POST', '/gateway/keys', { body: { name: 'real' } })).json;
      const secret = real.secret as string;
      expect((await t.call('POST', '/gateway/keys', { body: { name: secret } })).status).toBe(400);
      t.server.db.prepare('UPDATE gateway_keys SET name = ? WHERE id = ?').run(secret, real.id);
      const refused = await pack('pack-secret');
      expect(refused.stderr).toMatch(
        /^appliance-admin: evidence: (audit\.csv|audit\.jsonl|keys\.json) line \d+ holds a gateway key secret; /,
      );
      expect(refused.stderr).not.toContain(secret);
      expect(refused.code).toBe(1);
      expect(existsSync(join(dir, 'pack-secret'))).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('evidence verify finds a file changed after the pack was made', async () => {
    const changed = join(dir, 'pack-changed');
    await runCli([
      'evidence',
      '--since',
      '30d',
      '-o',
      changed,
      '--url',
      s.url,
      '--token-file',
      writeTokenFile(s.tokens.auditor),
    ]);
    const settings = join(changed, 'settings.json');
    writeFileSync(settings, readFileSync(settings, 'utf8').replace('{', '{"tampered": true, '));
    writeFileSync(join(changed, 'extra.txt'), 'added later');
    const r = await runCli(['evidence', 'verify', changed]);
    expect(r.stdout).toContain('settings.json does not match the manifest (changed after the pack was made)');
    expect(r.stdout).toContain('extra.txt is not in the manifest (added later)');
    expect(r.code).toBe(1);
  });

  /** A copy of the pack to tamper with, and its manifest rewritten to match the files as they now are. */
  const copyOf = (name: string) => {
    const copy = join(dir, name);
    cpSync(pack, copy, { recursive: true });
    return copy;
  };
  const rehashManifest = (p: string, drop: string[] = []) => {
    const file = join(p, 'manifest.json');
    const m = JSON.parse(readFileSync(file, 'utf8'));
    m.files = m.files
      .filter((f: { name: string }) => !drop.includes(f.name))
      .map((f: { name: string }) => {
        const bytes = readFileSync(join(p, f.name));
        return { ...f, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
      });
    writeFileSync(file, `${JSON.stringify(m, null, 2)}\n`);
  };
  const pinnedKey = () => {
    const key = join(dir, 'pack-pinned.pem');
    writeFileSync(key, JSON.parse(readFileSync(join(pack, 'public-keys.json'), 'utf8'))[0].public_key_pem);
    return key;
  };

  it.skipIf(!chainReady)('audit.jsonl deleted and the manifest rewritten without it: broken, exit 1', async () => {
    const p = copyOf('pack-no-jsonl');
    rmSync(join(p, 'audit.jsonl'));
    rehashManifest(p, ['audit.jsonl']);
    const r = await runCli(['evidence', 'verify', p, '--key', pinnedKey()]);
    expect(r.stdout).toContain('audit.jsonl is not in the manifest: without it the pack proves nothing complete');
    expect(r.stdout).toContain('the manifest was changed after it was sealed');
    expect(r.stderr).toBe('appliance-admin: evidence verify: BROKEN OR INCOMPLETE (2 findings)\n');
    expect(r.code).toBe(1);
  });

  it('a folder holding only {"files":[]} as manifest.json: cannot prove anything, exit 1', async () => {
    const p = join(dir, 'pack-empty-manifest');
    mkdirSync(p);
    writeFileSync(join(p, 'manifest.json'), '{"files":[]}');
    const r = await runCli(['evidence', 'verify', p]);
    expect(r.stdout).toContain('cannot prove: the manifest is not signed (the pack has no seal.json');
    for (const f of ['audit.jsonl', 'audit.csv', 'audit.jsonl.checkpoint.json', 'public-keys.json'])
      expect(r.stdout).toContain(`${f} is not in the manifest`);
    expect(r.stdout).not.toContain('every file matches');
    expect(r.code).toBe(1);
  });

  it.skipIf(!chainReady)('a file changed after sealing, its manifest record rewritten to match: exit 1', async () => {
    const p = copyOf('pack-resealed');
    const settings = join(p, 'settings.json');
    writeFileSync(settings, readFileSync(settings, 'utf8').replace('{', '{"tampered": true, '));
    rehashManifest(p);
    const r = await runCli(['evidence', 'verify', p, '--key', pinnedKey()]);
    expect(r.stdout).toMatch(
      /^the seal of the manifest \(seal\.json\): it seals another manifest \(sha256 [0-9a-f]{64}\)/m,
    );
    expect(r.code).toBe(1);
  });

  it.skipIf(!chainReady)('a pack without its seal (as an older version made them) is not proven: exit 1', async () => {
    const p = copyOf('pack-unsealed');
    rmSync(join(p, 'seal.json'));
    const r = await runCli(['evidence', 'verify', p, '--key', pinnedKey()]);
    expect(r.stdout).toContain('cannot prove: the manifest is not signed (the pack has no seal.json: it was removed)');
    expect(r.code).toBe(1);
  });

  it.skipIf(!chainReady)(
    "both exports swapped for another export (a filter that matched nothing), resealed by an auditor: not the pack's range",
    async () => {
      const p = copyOf('pack-swapped');
      for (const [file, format] of [
        ['audit.jsonl', 'jsonl'],
        ['audit.csv', 'csv'],
      ] as const) {
        const r = await s.call('GET', `/audit/export?format=${format}&actor=nobody`, { role: 'auditor' });
        expect(r.status).toBe(200);
        writeFileSync(join(p, file), r.text);
        const statement = statementFileOf({
          statement: String(r.headers['audit-export-statement']),
          checkpoint: String(r.headers['audit-checkpoint']),
        });
        writeFileSync(join(p, `${file}.checkpoint.json`), statement.text!);
      }
      rehashManifest(p);
      const manifest = readFileSync(join(p, 'manifest.json'));
      const seal = await s.call('POST', '/audit/seal', {
        role: 'auditor',
        body: { sha256: createHash('sha256').update(manifest).digest('hex'), purpose: 'evidence-pack' },
      });
      expect(seal.status).toBe(201);
      writeFileSync(join(p, 'seal.json'), JSON.stringify(seal.json));
      const r = await runCli(['evidence', 'verify', p, '--key', pinnedKey()]);
      expect(r.stdout).toMatch(
        /audit\.jsonl's statement is for another export \(filters \{"actor":"nobody"\}\), not the pack's range/,
      );
      expect(r.stdout).toMatch(/audit\.csv's statement is for another export/);
      expect(r.code).toBe(1);
    },
  );

  it.skipIf(!chainReady)("another seal, or the seal's entry edited, does not seal this manifest", async () => {
    // a real seal the appliance signed, of another manifest
    const other = await s.call('POST', '/audit/seal', {
      role: 'auditor',
      body: { sha256: createHash('sha256').update('another pack').digest('hex'), purpose: 'evidence-pack' },
    });
    expect(other.status).toBe(201);
    const p = copyOf('pack-other-seal');
    writeFileSync(join(p, 'seal.json'), JSON.stringify(other.json));
    const r = await runCli(['evidence', 'verify', p, '--key', pinnedKey()]);
    expect(r.stdout).toContain('it seals another manifest');
    expect(r.code).toBe(1);

    // this pack's seal, its entry's actor changed: the checkpoint no longer signs it
    const q = copyOf('pack-edited-seal');
    const seal = JSON.parse(readFileSync(join(q, 'seal.json'), 'utf8'));
    seal.entry.actor.subject = 'someone-else';
    writeFileSync(join(q, 'seal.json'), JSON.stringify(seal));
    const e = await runCli(['evidence', 'verify', q, '--key', pinnedKey()]);
    expect(e.stdout).toMatch(/its entry is not the one its checkpoint #[\d,]+ signed \(it was changed\)/);
    expect(e.code).toBe(1);
  });
});
