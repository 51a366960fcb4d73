import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MemoryTree,
  consistencyProof,
  inclusionProof,
  leafHash,
  verifyConsistency,
  verifyInclusion,
} from '../../src/audit-chain/merkle.js';
import {
  COSIGNATURE_V1,
  ED25519,
  cosign,
  formatNote,
  formatVerifierKey,
  noteKeyId,
  noteSignedBy,
  parseCheckpointText,
  parseNote,
  signNote,
} from '../../src/audit-chain/note.js';
import { noteText } from '../../src/server/audit-chain/checkpoint-note.js';
import type { AuditCheckpoint } from '../../src/contract/index.js';
import { auditRotateKeyCommand } from '../../src/cli/audit-rotate-key.js';
import { DB_FILE } from '../../src/server/db/open.js';
import { migrations } from '../../src/server/db/migrations.js';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tamper } from '../helpers/tamper.js';

/**
 * The trail's transparency-log tree (issue 40 §1, §2, §4): kept by every writer, signed in each
 * checkpoint's note, and served as RFC 9162 proofs that verify with this project's merkle.ts and with
 * an implementation no one here wrote (@sigstore/verify); witnesses' cosignatures kept and served.
 */
const require = createRequire(import.meta.url);
const { verifyMerkleInclusion } = require('@sigstore/verify/dist/tlog/merkle.js') as {
  verifyMerkleInclusion: (entry: unknown, checkpoint: unknown) => void;
};
const { LogCheckpoint, verifyCheckpoint } = require('@sigstore/verify/dist/tlog/checkpoint.js') as {
  LogCheckpoint: { fromString(text: string): unknown };
  verifyCheckpoint: (entry: unknown, tlogs: unknown[]) => { logHash: Buffer };
};

const hex = (h: string) => Buffer.from(h, 'hex');
const seeds = (n: number, from = 0): AuditSeed[] =>
  Array.from({ length: n }, (_, i) => ({
    actor: { subject: `seeder-${(from + i) % 7}`, role: 'it_admin' },
    action: 'channel.update',
    target: { type: 'channel', id: `ch-${(from + i) % 5}` },
    outcome: 'success',
    status: 200,
    request_id: `req_seed_${from + i}`,
    source_ip: null,
    details: { i: from + i },
  }));

type Db = TestServer['server']['db'];
const entryHashes = (db: Db) => db.prepare('SELECT hash FROM audit ORDER BY seq').pluck().all() as string[];
const treeOf = (hashes: string[]) => {
  const t = new MemoryTree();
  for (const h of hashes) t.append(leafHash(h));
  return t;
};

async function listed(s: TestServer): Promise<{ data: AuditCheckpoint[]; key: KeyObject }> {
  const r = await s.call('GET', '/audit/checkpoints?limit=500', { role: 'auditor' });
  expect(r.status).toBe(200);
  return { data: r.json.data, key: createPublicKey(r.json.public_keys[0].public_key_pem) };
}

/** The signed tree head of a checkpoint, after checking its note's signature with `key`. */
function signedTree(c: AuditCheckpoint, key: KeyObject): { size: number; root: Buffer } {
  const note = parseNote(c.note!);
  if (typeof note === 'string') throw new Error(note);
  expect(noteSignedBy(note, c.origin!, key)).toBe('valid');
  const body = parseCheckpointText(note.text);
  if (typeof body === 'string') throw new Error(body);
  expect(body.origin).toBe(c.origin);
  expect(body.extensions).toEqual([`chain-head ${c.seq} ${c.hash} ${c.at}`]);
  expect(body.size).toBe(c.tree_size);
  expect(body.root.toString('hex')).toBe(c.root_hash);
  return { size: body.size, root: body.root };
}

const problem = (r: { status: number; headers: Record<string, unknown>; json: any }, status: number) => {
  expect(r.status).toBe(status);
  expect(String(r.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(r.json).toMatchObject({ status });
};

describe("docs/audit-chain.md's worked example", () => {
  it('gives the tree, the proofs and the note it states', () => {
    const seed = Buffer.alloc(32, 7);
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    const h1 = '05b4af1c57540227b1065736ec80e5cb615c06674a2436c3a524fc69dc551254';
    const h2 = 'dd09c4e5897a8f00ee99a63aa6363e5f45700f20a93ca38b2791fd6d1884f35f';
    const t = treeOf([h1, h2]);
    const [l0, l1] = [
      'e93d58e54dc50e2c9230f89c813708a7558bf414d42b723b583437469e5c872e',
      '4fb23912cfc42156d5bbbafcc7b3ed0ce3dcb9c88ca3aafee143570ea73f7a5c',
    ];
    expect([leafHash(h1).toString('hex'), leafHash(h2).toString('hex')]).toEqual([l0, l1]);
    expect(t.root(2).toString('hex')).toBe('236baefd5485f8b16f79d9e96948f2b9b3259652c77ced840f2bb82bfbf8e88e');
    expect(t.root(2).toString('base64')).toBe('I2uu/VSF+LFvednpaUjyubMlllLHfO2EDyu4K/v46I4=');
    expect(inclusionProof(t.nodes, 0, 2).map((b) => b.toString('hex'))).toEqual([l1]);
    expect(inclusionProof(t.nodes, 1, 2).map((b) => b.toString('hex'))).toEqual([l0]);
    expect(consistencyProof(t.nodes, 1, 2).map((b) => b.toString('hex'))).toEqual([l1]);
    const origin = 'appliance-admin/0123456789abcdef';
    const c = { seq: 2, hash: h2, at: '2026-11-26T09:31:12.251Z', signature: '', key_fingerprint: '' };
    const text = noteText(origin, 2, t.root(2), c);
    expect(formatNote({ text, signatures: [signNote(text, origin, key)] })).toBe(
      `${origin}\n2\nI2uu/VSF+LFvednpaUjyubMlllLHfO2EDyu4K/v46I4=\nchain-head 2 ${h2} 2026-11-26T09:31:12.251Z\n\n` +
        `\u2014 ${origin} hacX2XJN5lcRBaiqcHB3TyoiAMGzzItlMxqVptInWfCt/bBcQAl54RspkKZ3RASJ3SIWG37RUds9LPGqvSpqviktXQ0=\n`,
    );
    expect(formatVerifierKey(origin, ED25519, createPublicKey(key))).toBe(
      `${origin}+85a717d9+AepKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs`,
    );
  });
});

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  // the bulk path, as the demo's seeder and the benchmarks write: a checkpoint at every 1,000th entry
  insertAuditBatch(s.server.db, seeds(2100));
  // and the server's own writer, with a checkpoint of its head signed by the seal
  expect((await s.call('PUT', '/channels', { body: { channels: [] } })).status).toBeLessThan(500);
  const seal = await s.call('POST', '/audit/seal', {
    role: 'auditor',
    body: { sha256: 'ab'.repeat(32), purpose: 'evidence-pack' },
  });
  expect(seal.status).toBe(201);
});
afterAll(async () => {
  await s?.close();
});

describe('the tree in the checkpoints', () => {
  it('every checkpoint signs, in a C2SP note, the tree of the entries up to its seq, with the root of a fresh build', async () => {
    const { data, key } = await listed(s);
    const all = entryHashes(s.server.db);
    const fresh = treeOf(all);
    expect(data.length).toBeGreaterThanOrEqual(3);
    for (const c of data) {
      expect(c.origin).toMatch(/^appliance-admin\/[0-9a-f]{16}$/);
      const { size, root } = signedTree(c, key);
      expect(size).toBe(c.seq); // no gaps in this trail: the size is the seq
      expect(root.equals(fresh.root(size))).toBe(true);
    }
    // the stored tree holds every entry: its root at the full size is the fresh build's
    const { inclusionProofOf } = await import('../../src/server/audit-chain/proofs.js');
    expect(inclusionProofOf(s.server.db, { seq: all.length, tree_size: all.length }).leaf_index).toBe(all.length - 1);
  });
});

describe('the writer', () => {
  it("appends in the entries' own transaction: a batch that fails leaves neither its entries nor their leaves", async () => {
    const { treeHead } = await import('../../src/server/audit-chain/tree.js');
    const db = s.server.db;
    const before = { tree: treeHead(db), rows: db.prepare('SELECT count(*) FROM audit_tree').pluck().get() };
    const bad = [...seeds(1500, 9000), { ...seeds(1, 10500)[0]!, outcome: 'nope' as never }];
    expect(() => insertAuditBatch(db, bad)).toThrow(/unknown outcome/);
    expect({ tree: treeHead(db), rows: db.prepare('SELECT count(*) FROM audit_tree').pluck().get() }).toEqual(before);
    expect(before.tree.size).toBe(entryHashes(db).length);
  });
});

describe('GET /audit/proofs/inclusion', () => {
  it('proves entries in the newest signed tree, verified by merkle.ts and by @sigstore/verify against the signed note', async () => {
    const { data, key } = await listed(s);
    const newest = data[0]!;
    const { size, root } = signedTree(newest, key);
    const tlog = { logID: noteKeyId(newest.origin!, ED25519, key), baseURL: newest.origin, publicKey: key };
    for (const seq of [1, 2, 1000, 1001, 2048, size - 1, size]) {
      const r = await s.call('GET', `/audit/proofs/inclusion?seq=${seq}`, { role: 'auditor' });
      expect(r.status, `entry ${seq}`).toBe(200);
      const p = r.json;
      expect(p).toMatchObject({ seq, leaf_index: seq - 1, tree_size: size });
      expect(p.entry_hash).toBe(s.server.db.prepare('SELECT hash FROM audit WHERE seq = ?').pluck().get(seq));
      const path = (p.path as string[]).map(hex);
      expect(verifyInclusion(leafHash(p.entry_hash), p.leaf_index, size, path, root)).toBe(true);
      const entry = {
        canonicalizedBody: hex(p.entry_hash),
        inclusionProof: { logIndex: String(p.leaf_index), hashes: path, checkpoint: { envelope: newest.note } },
      };
      const text = (parseNote(newest.note!) as { text: string }).text;
      expect(() => verifyMerkleInclusion(entry, LogCheckpoint.fromString(text))).not.toThrow();
      expect(verifyCheckpoint(entry, [tlog]).logHash.equals(root)).toBe(true);
    }
  });

  it('proves an entry in an older signed tree, given its size; every role may read proofs', async () => {
    const { data, key } = await listed(s);
    const old = data.find((c) => c.tree_size === 1000)!;
    const { root } = signedTree(old, key);
    for (const role of ['it_admin', 'app_owner', 'auditor'] as const) {
      const r = await s.call('GET', '/audit/proofs/inclusion?seq=500&tree_size=1000', { role });
      expect(r.status).toBe(200);
      expect(verifyInclusion(leafHash(r.json.entry_hash), 499, 1000, r.json.path.map(hex), root)).toBe(true);
    }
    expect((await s.call('GET', '/audit/proofs/inclusion?seq=500', { role: null })).status).toBe(401);
  });

  it('answers problem+json for an entry that does not exist or a size that cannot hold it', async () => {
    const size = entryHashes(s.server.db).length;
    problem(await s.call('GET', `/audit/proofs/inclusion?seq=${size + 1}`, { role: 'auditor' }), 404);
    problem(await s.call('GET', `/audit/proofs/inclusion?seq=1&tree_size=${size + 1}`, { role: 'auditor' }), 400);
    problem(await s.call('GET', '/audit/proofs/inclusion?seq=10&tree_size=9', { role: 'auditor' }), 400);
    expect((await s.call('GET', '/audit/proofs/inclusion?seq=10&tree_size=10', { role: 'auditor' })).status).toBe(200);
    problem(await s.call('GET', '/audit/proofs/inclusion?seq=0', { role: 'auditor' }), 400);
    problem(await s.call('GET', '/audit/proofs/inclusion?seq=x', { role: 'auditor' }), 400);
    problem(await s.call('GET', '/audit/proofs/inclusion', { role: 'auditor' }), 400);
    problem(await s.call('GET', '/audit/proofs/inclusion?seq=1&extra=1', { role: 'auditor' }), 400);
  });
});

describe('GET /audit/proofs/consistency', () => {
  it("proves each signed tree a prefix of every later one, against both notes' roots", async () => {
    const { data, key } = await listed(s);
    const trees = data.map((c) => signedTree(c, key)).reverse();
    for (let i = 0; i < trees.length; i++)
      for (let j = i; j < trees.length; j++) {
        const [a, b] = [trees[i]!, trees[j]!];
        const r = await s.call('GET', `/audit/proofs/consistency?from=${a.size}&to=${b.size}`, { role: 'auditor' });
        expect(r.status).toBe(200);
        expect(r.json).toMatchObject({ from: a.size, to: b.size });
        expect(verifyConsistency(a.size, b.size, a.root, b.root, r.json.path.map(hex))).toBe(true);
      }
    // and between sizes no checkpoint signed, against a fresh build
    const fresh = treeOf(entryHashes(s.server.db));
    const r = await s.call('GET', '/audit/proofs/consistency?from=7&to=1999', { role: 'app_owner' });
    expect(verifyConsistency(7, 1999, fresh.root(7), fresh.root(1999), r.json.path.map(hex))).toBe(true);
  });

  it('answers problem+json unless 1 <= from <= to <= the tree size', async () => {
    const size = entryHashes(s.server.db).length;
    problem(await s.call('GET', '/audit/proofs/consistency?from=0&to=5', { role: 'auditor' }), 400);
    problem(await s.call('GET', '/audit/proofs/consistency?from=6&to=5', { role: 'auditor' }), 400);
    problem(await s.call('GET', `/audit/proofs/consistency?from=1&to=${size + 1}`, { role: 'auditor' }), 400);
    problem(await s.call('GET', '/audit/proofs/consistency?from=1', { role: 'auditor' }), 400);
  });
});

describe('POST /audit/checkpoints/cosignatures', () => {
  const witness = generateKeyPairSync('ed25519');
  const name = 'witness.example/w1';
  const vkey = formatVerifierKey(name, COSIGNATURE_V1, witness.publicKey);
  const stored = () => s.server.db.prepare('SELECT * FROM audit_cosignatures ORDER BY 1, 2, 3').all();
  const lastEntry = async () => (await s.call('GET', '/audit?limit=1&action=audit.checkpoint.cosign')).json.data[0];
  /** the appliance's note (its own signature only) with a cosignature line by `key` under `as` at `time` */
  const cosigned = (c: AuditCheckpoint, time: number, key = witness.privateKey, as = name) => {
    const note = parseNote(c.note!) as Exclude<ReturnType<typeof parseNote>, string>;
    const own = note.signatures.filter((x) => x.name === c.origin);
    return formatNote({ text: note.text, signatures: [...own, cosign(note.text, as, key, time)] });
  };

  it("keeps a valid cosignature (an auditor's token), serves it in the note, and audits it", async () => {
    const { data } = await listed(s);
    const c = data[0]!;
    const r = await s.call('POST', '/audit/checkpoints/cosignatures', {
      role: 'auditor',
      body: { note: cosigned(c, 1_800_000_000), witness_key: vkey },
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ seq: c.seq, tree_size: c.tree_size, root_hash: c.root_hash });
    const note = parseNote(r.json.note) as Exclude<ReturnType<typeof parseNote>, string>;
    const { cosignedBy } = await import('../../src/audit-chain/note.js');
    expect(cosignedBy(note, name, witness.publicKey)).toEqual({ time: 1_800_000_000 });
    expect(r.json.note.startsWith(c.note!)).toBe(true);
    // the list serves the same note from now on
    expect((await listed(s)).data.find((x) => x.tree_size === c.tree_size)!.note).toBe(r.json.note);
    expect(await lastEntry()).toMatchObject({
      actor: { subject: 'aude-auditor', role: 'auditor' },
      target: { type: 'audit_checkpoint', id: String(c.tree_size) },
      outcome: 'success',
      status: 201,
      details: {
        witness: name,
        key_id: noteKeyId(name, COSIGNATURE_V1, witness.publicKey).toString('hex'),
        time: 1_800_000_000,
      },
    });
  });

  it('keeps one cosignature per witness and checkpoint: a newer one replaces it, an older one does not', async () => {
    const { data } = await listed(s);
    const c = data.find((x) => x.note!.includes(name))!;
    const post = (time: number) =>
      s.call('POST', '/audit/checkpoints/cosignatures', {
        role: 'it_admin',
        body: { note: cosigned(c, time), witness_key: vkey },
      });
    expect((await post(1_800_000_100)).status).toBe(201);
    const older = await post(1_700_000_000);
    expect(older.status).toBe(201);
    const note = parseNote(older.json.note) as Exclude<ReturnType<typeof parseNote>, string>;
    expect(note.signatures.filter((x) => x.name === name)).toHaveLength(1);
    const { cosignedBy } = await import('../../src/audit-chain/note.js');
    expect(cosignedBy(note, name, witness.publicKey)).toEqual({ time: 1_800_000_100 });
  });

  it('keeps at most 15 witnesses per checkpoint: a 16th is refused (409), stored nowhere, so that no flood makes the note unreadable', async () => {
    const { data } = await listed(s);
    const c = data.find((x) => x.note && !x.note.includes('witness.example/'))!;
    const post = (i: number) => {
      const k = generateKeyPairSync('ed25519');
      const as = `flood.example/w${i}`;
      return s.call('POST', '/audit/checkpoints/cosignatures', {
        role: 'auditor',
        body: {
          note: cosigned(c, 1_800_000_000, k.privateKey, as),
          witness_key: formatVerifierKey(as, COSIGNATURE_V1, k.publicKey),
        },
      });
    };
    for (let i = 0; i < 15; i++) expect((await post(i)).status).toBe(201);
    const before = stored().length;
    const sixteenth = await post(15);
    expect(sixteenth.status).toBe(409);
    expect(sixteenth.json.detail).toMatch(/already holds 15 witnesses' cosignatures/);
    expect(stored()).toHaveLength(before);
    // the note as served still reads: its own signature and 15 cosignatures
    const note = parseNote((await listed(s)).data.find((x) => x.tree_size === c.tree_size)!.note!);
    expect(typeof note === 'string' ? note : note.signatures.length).toBe(16);
  });

  it('refuses a bad cosignature, another key, a note it did not sign or a log key, with problem+json, storing nothing, audited as failed', async () => {
    const { data } = await listed(s);
    const c = data[0]!;
    const other = generateKeyPairSync('ed25519');
    const good = cosigned(c, 1_800_000_200);
    const before = stored();
    const lines = good.trimEnd().split('\n');
    const sig = Buffer.from(lines.at(-1)!.split(' ')[2]!, 'base64');
    sig[sig.length - 1]! ^= 1;
    const flipped = `${lines.slice(0, -1).join('\n')}\n\u2014 ${name} ${sig.toString('base64')}\n`;
    const cases: [string, unknown, number][] = [
      ['a cosignature that does not verify', { note: flipped, witness_key: vkey }, 422],
      ['signed by another key', { note: cosigned(c, 1_800_000_200, other.privateKey), witness_key: vkey }, 422],
      [
        'a note text the appliance did not sign',
        { note: good.replace(`\n${c.tree_size}\n`, `\n${c.tree_size! + 1}\n`), witness_key: vkey },
        422,
      ],
      ['a changed chain-head line', { note: good.replace('chain-head ', 'chain-head  '), witness_key: vkey }, 422],
      ['not a note', { note: 'hello', witness_key: vkey }, 400],
      [
        'a log key, not a witness key',
        { note: good, witness_key: formatVerifierKey(name, ED25519, witness.publicKey) },
        400,
      ],
      ['not a key', { note: good, witness_key: 'nope' }, 400],
      ['an unknown field', { note: good, witness_key: vkey, extra: 1 }, 400],
    ];
    for (const [what, body, status] of cases) {
      const r = await s.call('POST', '/audit/checkpoints/cosignatures', { role: 'auditor', body });
      expect(r.status, what).toBe(status);
      problem(r, status);
      expect(stored(), what).toEqual(before);
      expect(await lastEntry(), what).toMatchObject({ outcome: 'failed', status });
    }
  });
});

describe('a restart', () => {
  it('keeps the tree, its log id and its appends: proofs after it verify against notes from before and after', async () => {
    const dataDir = s.dataDir;
    const before = await listed(s);
    await s.close();
    s = await startTestServer({ dataDir });
    const after = await listed(s);
    expect(after.data[0]).toEqual(before.data[0]);
    insertAuditBatch(s.server.db, seeds(1000, 5000));
    const { data, key } = await listed(s);
    expect(data[0]!.origin).toBe(before.data[0]!.origin);
    const old = signedTree(before.data[0]!, key);
    const now = signedTree(data[0]!, key);
    expect(now.size).toBeGreaterThan(old.size);
    expect(now.root.equals(treeOf(entryHashes(s.server.db)).root(now.size))).toBe(true);
    const r = await s.call('GET', `/audit/proofs/consistency?from=${old.size}&to=${now.size}`, { role: 'auditor' });
    expect(verifyConsistency(old.size, now.size, old.root, now.root, r.json.path.map(hex))).toBe(true);
  });
});

describe('a key rotation', () => {
  it("on the host (audit rotate-key): the rotation's checkpoint signs the tree's note with the new key, same log", async () => {
    const before = await listed(s);
    expect(await auditRotateKeyCommand(['rotate-key', '--data', s.dataDir])).toBe(0);
    const { data, key } = await listed(s);
    expect(key.equals(before.key)).toBe(false);
    const c = data[0]!;
    expect(c.origin).toBe(before.data[0]!.origin);
    const { size, root } = signedTree(c, key);
    expect(root.equals(treeOf(entryHashes(s.server.db)).root(size))).toBe(true);
    expect(
      noteSignedBy(parseNote(c.note!) as Exclude<ReturnType<typeof parseNote>, string>, c.origin!, before.key),
    ).toBe('missing');
    // the older notes still verify with the retired key
    signedTree(before.data[0]!, before.key);
  });
});

describe('tampering', () => {
  it("an entry's hash changed in the database: its proof no longer verifies against the signed root", async () => {
    const { data, key } = await listed(s);
    const { size, root } = signedTree(data[0]!, key);
    const ok = (await s.call('GET', '/audit/proofs/inclusion?seq=1234', { role: 'auditor' })).json;
    expect(verifyInclusion(leafHash(ok.entry_hash), ok.leaf_index, size, ok.path.map(hex), root)).toBe(true);
    tamper(s.server.db, `UPDATE audit SET hash = '${'0'.repeat(63)}1' WHERE seq = 1234`);
    const p = (await s.call('GET', '/audit/proofs/inclusion?seq=1234', { role: 'auditor' })).json;
    expect(p.entry_hash).toBe(`${'0'.repeat(63)}1`);
    expect(verifyInclusion(leafHash(p.entry_hash), p.leaf_index, size, p.path.map(hex), root)).toBe(false);
    // a neighbour's proof carries the same stored leaf, so it still verifies: only the changed entry fails
    const n = (await s.call('GET', '/audit/proofs/inclusion?seq=1233', { role: 'auditor' })).json;
    expect(verifyInclusion(leafHash(n.entry_hash), n.leaf_index, size, n.path.map(hex), root)).toBe(true);
  });
});

describe('an older database', () => {
  it('gets its tree by migration, gaps and all: the same root as a fresh build, signed at its first start', async () => {
    const dataDir = join(tempDir('aa-tree'), 'data');
    mkdirSync(dataDir);
    const db = new Database(join(dataDir, DB_FILE));
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    const upTo = (v: number, from = 1) => {
      for (const m of migrations.filter((x) => x.version >= from && x.version <= v)) {
        db.exec(m.sql);
        m.run?.(db);
        db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-01-01T00:00:00Z');
      }
    };
    upTo(5);
    const insert = db.prepare(`INSERT INTO audit (seq, id, at, at_ms, actor_subject, actor_role, action, target_type,
      target_id, target_name, outcome, status, request_id, source_ip, details) VALUES (?, ?, ?, ?, 'ben', 'it_admin',
      'channel.update', 'channel', 'slack', null, 'success', 200, ?, null, '{}')`);
    // entries deleted before the chain existed leave gaps in seq
    const seqs = Array.from({ length: 60 }, (_, i) => i + 1).filter((q) => q % 13 !== 0 && q !== 20 && q !== 21);
    for (const q of seqs) insert.run(q, `aud_${q}`, new Date(1.77e12 + q).toISOString(), 1.77e12 + q, `req_${q}`);
    upTo(10, 6); // chained by migration 6, as an appliance of the version before the tree
    db.close();

    const t = await startTestServer({ dataDir });
    try {
      const all = t.server.db.prepare('SELECT seq, hash FROM audit ORDER BY seq').all() as {
        seq: number;
        hash: string;
      }[];
      const fresh = treeOf(all.map((e) => e.hash));
      const { data, key } = await listed(t);
      const { size, root } = signedTree(data[0]!, key);
      expect(size).toBe(all.length);
      expect(root.equals(fresh.root())).toBe(true);
      // after a gap the leaf index is the entry's position, not seq - 1
      for (const [i, e] of all.entries()) {
        if (i % 5 && e.seq !== 22) continue;
        const p = (await t.call('GET', `/audit/proofs/inclusion?seq=${e.seq}`, { role: 'auditor' })).json;
        expect(p.leaf_index).toBe(i);
        expect(verifyInclusion(leafHash(e.hash), i, size, p.path.map(hex), root)).toBe(true);
      }
      expect((await t.call('GET', '/audit/proofs/inclusion?seq=13', { role: 'auditor' })).status).toBe(404);
      // the writer appends after the migrated tree
      insertAuditBatch(t.server.db, seeds(5));
      const more = t.server.db.prepare('SELECT hash FROM audit ORDER BY seq').pluck().all() as string[];
      const last = (await t.call('GET', `/audit/proofs/consistency?from=${size}&to=${more.length}`)).json;
      const grown = treeOf(more);
      expect(verifyConsistency(size, more.length, root, grown.root(), last.path.map(hex))).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe('the demo', () => {
  it("seeds a trail whose tree is a fresh build's", async () => {
    const d = await startTestServer({ demo: true });
    try {
      const all = entryHashes(d.server.db);
      const { data, key } = await listed(d);
      const fresh = treeOf(all);
      for (const c of data.slice(0, 3)) {
        const { size, root } = signedTree(c, key);
        expect(root.equals(fresh.root(size))).toBe(true);
      }
      const { treeRoot, treeHead } = await import('../../src/server/audit-chain/tree.js');
      expect(treeHead(d.server.db).size).toBe(all.length);
      expect(treeRoot(d.server.db, all.length).equals(fresh.root())).toBe(true);
    } finally {
      await d.close();
    }
  });
});
