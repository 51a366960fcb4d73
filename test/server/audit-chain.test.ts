import { createHash, createPublicKey, verify } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/fixtures.js';
import Database from '../../src/server/db/sqlite-driver.js';
import { DB_FILE, openDatabase } from '../../src/server/db/open.js';
import { migrations } from '../../src/server/db/migrations.js';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import {
  checkpointIfStale,
  CHECKPOINT_EVERY_ENTRIES,
  CHECKPOINT_EVERY_MS,
} from '../../src/server/audit-chain/checkpoints.js';
import { SIGNED_HEAD_FILE } from '../../src/server/audit-chain/signed-head.js';
import { auditCsvColumns } from '../../src/server/governance/audit-trail.js';
import { thousands } from '../../src/text/thousands.js';
import { tamper } from '../helpers/tamper.js';
import { KEY_FILE } from '../../src/server/audit-chain/keys.js';
import { keyFingerprint as fingerprintOf } from '../../src/audit-chain/checkpoint.js';
import { entryHash } from '../../src/audit-chain/canonical.js';
import { AUDIT_CSV_HEADERS } from '../../src/audit-chain/csv-entries.js';
import { displayFingerprint } from '../../src/text/fingerprint.js';
import { issueToken, revokeToken } from '../../src/server/tokens.js';
import { recordAudit } from '../../src/server/audit.js';
import { auditRotateKeyCommand } from '../../src/cli/audit-rotate-key.js';
import { exportCommand } from '../../src/cli/export.js';
import { writeTokenFile } from '../helpers/cli.js';

type Entry = Record<string, any>;
type Checkpoint = { seq: number; hash: string; at: string; signature: string; key_fingerprint: string };

const ZEROS = '0'.repeat(64);
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** What a third-party verifier does (docs/audit-chain.md), with nothing but node:crypto and canonicalize. */
function recomputes(e: Entry): boolean {
  const { hash, ...rest } = e;
  return sha256(Buffer.from(canonicalize(rest)!, 'utf8')) === hash;
}

function expectChained(entries: Entry[], first = 1) {
  expect(entries.length).toBeGreaterThan(0);
  entries.forEach((e, i) => {
    expect(e.seq).toBe(first + i);
    expect(e.prev_hash).toBe(i === 0 ? (first === 1 ? ZEROS : e.prev_hash) : entries[i - 1].hash);
    expect(recomputes(e)).toBe(true);
  });
}

function fingerprintOfPem(pem: string): string {
  const der = createPublicKey(pem).export({ type: 'spki', format: 'der' });
  return sha256(der.subarray(der.length - 32));
}

function verifies(c: Checkpoint, pem: string): boolean {
  const payload = Buffer.from(canonicalize({ at: c.at, hash: c.hash, seq: c.seq })!, 'utf8');
  return verify(null, payload, createPublicKey(pem), Buffer.from(c.signature, 'base64'));
}

const seed = (n: number, from = 0): AuditSeed[] =>
  Array.from({ length: n }, (_, i) => ({
    actor: { subject: i % 2 ? 'ana' : 'ben', role: 'app_owner' },
    action: i % 3 ? 'gateway.key.revoke' : 'routing.update',
    target: { type: 'gateway.key', id: `key_${from + i}`, name: i % 5 ? null : `name ${i}` },
    outcome: 'success',
    status: 200,
    request_id: `req_${from + i}`,
    source_ip: i % 4 ? '10.0.0.1' : null,
    details: { i: from + i, text: 'é "quoted" \u2028', nested: { b: 1, a: [1.5, null, true] } },
  }));

const jsonl = (text: string): Entry[] =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

let s: TestServer;
const logLines: string[] = [];

beforeAll(async () => {
  s = await startTestServer({ logger: pino({ level: 'trace' }, { write: (l: string) => void logLines.push(l) }) });
});
afterAll(async () => {
  await s?.close();
});

async function checkpoints(query = ''): Promise<{ data: Checkpoint[]; public_keys: Entry[] }> {
  const res = await s.call('GET', `/audit/checkpoints?limit=500${query}`, { role: 'auditor' });
  expect(res.status).toBe(200);
  return res.json;
}
const pemOf = (keys: Entry[], fingerprint: string) => keys.find((k) => k.fingerprint === fingerprint)!.public_key_pem;

describe('the audit hash chain', () => {
  it('links every entry the server writes, as the list serves them', async () => {
    const body = { channels: [{ id: 'chan_web', enabled: false }] };
    expect((await s.call('PUT', '/channels', { body })).status).toBe(200);
    expect((await s.call('PUT', '/channels', { role: 'auditor', body })).status).toBe(403);
    insertAuditBatch(s.server.db, seed(40));
    const res = await s.call('GET', '/audit?limit=500', { role: 'auditor' });
    expect(res.status).toBe(200);
    const entries: Entry[] = [...res.json.data].reverse();
    expect(entries.some((e) => e.outcome === 'denied')).toBe(true);
    expectChained(entries);
  });

  it('stays one chain when the host CLI writes beside the server (another connection)', async () => {
    const host = openDatabase(s.dataDir);
    try {
      issueToken(host, 'auditor', 'night-shift', null, { subject: 'operator' });
      expect(
        (await s.call('PUT', '/channels', { body: { channels: [{ id: 'chan_web', enabled: true }] } })).status,
      ).toBe(200);
      expect(revokeToken(host, 'night-shift', { subject: 'operator' })).toBe(1);
      expect(
        (await s.call('PUT', '/channels', { body: { channels: [{ id: 'chan_web', enabled: false }] } })).status,
      ).toBe(200);
    } finally {
      host.close();
    }
    const res = await s.call('GET', '/audit?limit=500');
    const entries: Entry[] = [...res.json.data].reverse();
    expect(entries.slice(-4).map((e) => e.action)).toEqual([
      'token.issue',
      'channel.update',
      'token.revoke',
      'channel.update',
    ]);
    expectChained(entries);
  });

  it('stores a lone UTF-16 surrogate (from an identity token claim, say) as U+FFFD, so the entry still hashes', async () => {
    recordAudit(s.server.db, {
      actor: { subject: 'sso:\ud800x', role: 'auditor' },
      action: 'channel.update',
      target: { type: 'channel', id: null, name: '\udc00' },
      outcome: 'denied',
      status: 403,
      request_id: 'req_lone',
      source_ip: null,
      details: { ['k\ud801']: ['v\udfff', '😀'] },
    });
    const [e] = (await s.call('GET', '/audit?limit=1')).json.data;
    expect(e).toMatchObject({
      actor: { subject: 'sso:\ufffdx' },
      target: { name: '\ufffd' },
      details: { 'k\ufffd': ['v\ufffd', '😀'] },
    });
    expect(recomputes(e)).toBe(true);
  });

  it('exports JSON Lines in seq order up to a signed checkpoint sent in the headers', async () => {
    const res = await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
    expect(res.status).toBe(200);
    const entries = jsonl(res.text);
    expectChained(entries);
    expect(entries.at(-1)!.action).toBe('audit.export');
    const checkpoint: Checkpoint = JSON.parse(String(res.headers['audit-checkpoint']));
    expect(res.headers['audit-export-filtered']).toBe('false');
    expect(checkpoint.seq).toBe(entries.at(-1)!.seq);
    expect(checkpoint.hash).toBe(entries.at(-1)!.hash);
    const { data: items, public_keys } = await checkpoints();
    // the header carries the chain head; the list adds the tree head and its signed note
    expect(items[0]).toMatchObject(checkpoint);
    expect((items[0] as unknown as { note: string }).note).toContain(
      `chain-head ${checkpoint.seq} ${checkpoint.hash} ${checkpoint.at}\n`,
    );
    expect(public_keys).toHaveLength(1);
    expect(public_keys[0]).toMatchObject({ algorithm: 'Ed25519', retired_at: null });
    expect(fingerprintOfPem(public_keys[0].public_key_pem)).toBe(checkpoint.key_fingerprint);
    expect(verifies(checkpoint, public_keys[0].public_key_pem)).toBe(true);
    expect(verifies({ ...checkpoint, seq: checkpoint.seq - 1 }, public_keys[0].public_key_pem)).toBe(false);
  });

  it('signs a head once: an export whose own entry is the 1,000th leaves one checkpoint of it', async () => {
    const db = s.server.db;
    const last = (db.prepare('SELECT max(seq) FROM audit_checkpoints').pluck().get() as number | null) ?? 0;
    const head = db.prepare('SELECT max(seq) FROM audit').pluck().get() as number;
    for (let i = head; i < last + 999; i++)
      recordAudit(db, {
        actor: { subject: 'p', role: 'it_admin' },
        action: 'channel.update',
        target: { type: 'channel', id: null },
        outcome: 'success',
        status: 200,
        request_id: `req_once_${i}`,
        source_ip: null,
      });
    const r = await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
    const cp = JSON.parse(String(r.headers['audit-checkpoint']));
    expect(cp.seq).toBe(last + 1000);
    expect(db.prepare('SELECT count(*) FROM audit_checkpoints WHERE seq = ?').pluck().get(cp.seq)).toBe(1);
  });

  it("writes the CSV columns the verifiers read, in the scheme's order", () => {
    expect(auditCsvColumns.map((c) => c.header)).toEqual([...AUDIT_CSV_HEADERS]);
  });

  it('exports CSV with seq, prev_hash and hash as its last three columns', async () => {
    const res = await s.call('GET', '/audit/export?format=csv');
    const [header, ...rows]: string[][] = parse(res.text);
    expect(header.slice(-3)).toEqual(['seq', 'prev_hash', 'hash']);
    const listed = jsonl((await s.call('GET', '/audit/export?format=jsonl')).text);
    // the CSV's rows are the chain's, in seq order; the JSON export made one entry more since
    expect(rows.map((r) => r.slice(-3))).toEqual(
      listed.slice(0, rows.length).map((e) => [String(e.seq), e.prev_hash, e.hash]),
    );
    expect(JSON.parse(String(res.headers['audit-checkpoint'])).seq).toBe(rows.length);
  });

  it('marks a filtered export and keeps it in seq order and within its checkpoint', async () => {
    const res = await s.call('GET', '/audit/export?format=jsonl&actor=ana&action=gateway.key.*');
    expect(res.headers['audit-export-filtered']).toBe('true');
    const entries = jsonl(res.text);
    const checkpoint: Checkpoint = JSON.parse(String(res.headers['audit-checkpoint']));
    expect(entries.length).toBeGreaterThan(5);
    for (let i = 1; i < entries.length; i++) expect(entries[i].seq).toBeGreaterThan(entries[i - 1].seq);
    expect(entries.every((e) => recomputes(e) && e.seq <= checkpoint.seq && e.actor.subject === 'ana')).toBe(true);
  });

  it('signs a checkpoint every 1,000 entries, and after ten minutes when entries were added', async () => {
    const before = (await checkpoints()).data[0];
    // exports since that checkpoint signed none of their own entries: the batch counts from the head
    const head = s.server.db.prepare('SELECT max(seq) FROM audit').pluck().get() as number;
    insertAuditBatch(s.server.db, seed(2500, 100));
    const { data: items, public_keys } = await checkpoints();
    const made = items.filter((c) => c.seq > before.seq).map((c) => c.seq - head);
    expect(made.sort((a, b) => a - b)).toEqual([1000, 2000]);
    for (const c of items) expect(verifies(c, pemOf(public_keys, c.key_fingerprint))).toBe(true);
    const page = await checkpoints(`&at_or_before_seq=${before.seq}`);
    expect(page.data.every((c) => c.seq <= before.seq)).toBe(true);

    const db = s.server.db;
    const last = items[0];
    expect(checkpointIfStale(db, Date.parse(last.at) + CHECKPOINT_EVERY_MS - 1000)).toBeNull();
    const stale = checkpointIfStale(db, Date.parse(last.at) + CHECKPOINT_EVERY_MS + 1000);
    expect(stale?.seq).toBe(head + 2500);
    // nothing written since: no new checkpoint however long it has been
    expect(checkpointIfStale(db, Date.parse(last.at) + 3 * CHECKPOINT_EVERY_MS)).toBeNull();
  });

  it('rotates the key on the host, audited, chained and covered by a checkpoint of the new key', async () => {
    const old = (await checkpoints()).public_keys[0];
    expect(await auditRotateKeyCommand(['rotate-key', '--data', s.dataDir])).toBe(0);
    const { data: items, public_keys } = await checkpoints();
    expect(public_keys).toHaveLength(2);
    const current = public_keys.find((k) => k.retired_at === null)!;
    expect(current.fingerprint).not.toBe(old.fingerprint);
    expect(public_keys.find((k) => k.fingerprint === old.fingerprint)!.retired_at).not.toBeNull();
    const list = await s.call('GET', '/audit?action=audit.key.rotate&limit=5');
    const [rotation] = list.json.data;
    expect(rotation).toMatchObject({
      actor: { role: null },
      target: { type: 'audit_key', id: current.fingerprint },
      details: { retired_fingerprint: old.fingerprint },
    });
    expect(recomputes(rotation)).toBe(true);
    expect(items[0]).toMatchObject({ seq: rotation.seq, hash: rotation.hash, key_fingerprint: current.fingerprint });
    expect(verifies(items[0], current.public_key_pem)).toBe(true);
    // the running server signs with the new key from now on; older checkpoints verify with the retired one
    const res = await s.call('GET', '/audit/export?format=jsonl');
    const checkpoint: Checkpoint = JSON.parse(String(res.headers['audit-checkpoint']));
    expect(checkpoint.key_fingerprint).toBe(current.fingerprint);
    expect(verifies(checkpoint, current.public_key_pem)).toBe(true);
    expect(items.filter((c) => c.key_fingerprint === old.fingerprint).length).toBeGreaterThan(0);
    expectChained(jsonl(res.text));
  });

  it('has the CLI write the checkpoint beside an exported file', async () => {
    const out = join(tempDir('aa-chain-export'), 'trail.jsonl');
    const args = ['--url', s.url, '--token-file', writeTokenFile(s.tokens.auditor), '-o', out];
    expect(await exportCommand(['audit', '--format', 'jsonl', '--actor', 'ana', ...args])).toBe(0);
    const kept = JSON.parse(readFileSync(`${out}.checkpoint.json`, 'utf8'));
    // the signed statement says what the file holds: its filters and count are signed, not taken from the file
    expect(kept.statement).toMatchObject({ filters: { actor: 'ana' }, format: 'jsonl' });
    const { public_keys } = await checkpoints();
    expect(verifies(kept.checkpoint, pemOf(public_keys, kept.checkpoint.key_fingerprint))).toBe(true);
    const statementSigned = verify(
      null,
      Buffer.from(canonicalize(kept.statement)!, 'utf8'),
      createPublicKey(pemOf(public_keys, kept.key_fingerprint)),
      Buffer.from(kept.signature, 'base64'),
    );
    expect(statementSigned).toBe(true);
    const entries = jsonl(readFileSync(out, 'utf8'));
    expect(entries.length).toBe(kept.statement.count);
    expect(entries.every((e) => recomputes(e) && e.seq <= kept.checkpoint.seq)).toBe(true);
  });

  it('keeps the private key in a 0600 file and out of every answer and log line', async () => {
    const file = join(s.dataDir, KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const pem = readFileSync(file, 'utf8');
    const secret = pem.replace(/-----[A-Z ]+-----|\s/g, '');
    const rawKey = createPublicKey(pem).export({ format: 'jwk' });
    const privateJwk = (await import('node:crypto')).createPrivateKey(pem).export({ format: 'jwk' }).d!;
    const answers = await Promise.all(
      ['/audit/checkpoints', '/deployment', '/settings', '/audit?limit=500', '/audit/export?format=jsonl'].map((p) =>
        s.call('GET', p),
      ),
    );
    const text = answers.map((a) => a.text + JSON.stringify(a.headers)).join('\n') + logLines.join('\n');
    expect(text).not.toContain(secret);
    expect(text).not.toContain(privateJwk);
    expect(text).not.toContain(Buffer.from(privateJwk, 'base64url').toString('hex'));
    expect(rawKey.x).toBeTruthy();
  });

  it('gives the deployment and settings answers the current key fingerprint', async () => {
    const { public_keys } = await checkpoints();
    const current = public_keys.find((k) => k.retired_at === null)!.fingerprint;
    expect((await s.call('GET', '/deployment', { role: 'auditor' })).json.audit_key_fingerprint).toBe(current);
    expect((await s.call('GET', '/settings', { role: 'auditor' })).json.audit_key_fingerprint).toBe(current);
  });
});

describe("the signer's own record of what it signed (audit-signed-head.json)", () => {
  const signedHead = (t: TestServer) => join(t.dataDir, SIGNED_HEAD_FILE);
  const kept = (t: TestServer): Checkpoint => JSON.parse(readFileSync(signedHead(t), 'utf8'));
  /** the microtask that keeps a checkpoint once its transaction committed, and anything it queued */
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  const newest = (t: TestServer) =>
    t.server.db
      .prepare(
        'SELECT seq, hash, at, signature, key_fingerprint FROM audit_checkpoints ORDER BY seq DESC, id DESC LIMIT 1',
      )
      .get() as Checkpoint;
  const headSeq = (t: TestServer) => t.server.db.prepare('SELECT max(seq) FROM audit').pluck().get() as number;
  const entry = (i: number): Parameters<typeof recordAudit>[1] => ({
    actor: { subject: 'ana', role: 'it_admin' },
    action: 'channel.update',
    target: { type: 'channel', id: 'chan_web' },
    outcome: 'success',
    status: 200,
    request_id: `req_kept_${i}`,
    source_ip: null,
  });
  const exportStatus = async (t: TestServer) =>
    (await t.call('GET', '/audit/export?format=jsonl', { role: 'auditor' })).status;
  async function chainComponent(t: TestServer) {
    const d = await t.call('GET', '/deployment', { role: 'auditor' });
    return d.json.components.find((c: { name: string }) => c.name === 'audit-chain');
  }
  const opened: TestServer[] = [];
  const open = async (dataDir?: string) => {
    const t = await startTestServer({ dataDir });
    opened.push(t);
    return t;
  };
  afterAll(async () => {
    for (const t of opened) await t.close();
  });

  it('is written, 0600, once the transaction that signed a checkpoint commits, and not when it rolls back', async () => {
    const t = await open();
    const db = t.server.db;
    insertAuditBatch(db, seed(CHECKPOINT_EVERY_ENTRIES - 1 - headSeq(t)));
    expect(headSeq(t)).toBe(CHECKPOINT_EVERY_ENTRIES - 1);
    await settled();
    expect(existsSync(signedHead(t))).toBe(false);

    // a mutation whose entry is the 1,000th, its transaction failing after the entry (and the
    // checkpoint signed with it) was written
    expect(() =>
      db.transaction(() => {
        recordAudit(db, entry(1));
        expect(newest(t)?.seq).toBe(CHECKPOINT_EVERY_ENTRIES);
        throw new Error('the mutation failed after its audit entry');
      })(),
    ).toThrow('the mutation failed');
    await settled();
    expect(newest(t)).toBeUndefined();
    expect(existsSync(signedHead(t))).toBe(false);

    recordAudit(db, entry(2));
    expect(newest(t).seq).toBe(CHECKPOINT_EVERY_ENTRIES);
    await settled();
    expect(kept(t)).toEqual(newest(t));
    expect(statSync(signedHead(t)).mode & 0o777).toBe(0o600);
  });

  it('on a first start without it, the newest checkpoint in the database is where the check starts', async () => {
    const t = await open();
    insertAuditBatch(t.server.db, seed(2500));
    expect(await exportStatus(t)).toBe(200);
    const last = newest(t);
    const dataDir = t.dataDir;
    await t.close();
    rmSync(join(dataDir, SIGNED_HEAD_FILE));

    // as a database from before the file existed: it signs, and keeps what it signed from now on
    const again = await open(dataDir);
    expect(existsSync(signedHead(again))).toBe(false);
    recordAudit(again.server.db, entry(0)); // a change, so that the export signs its head
    expect(await exportStatus(again)).toBe(200);
    await settled();
    expect(kept(again)).toEqual(newest(again));
    expect(kept(again).seq).toBe(last.seq + 2);
    await again.close();

    // and a trail rewritten before that checkpoint (re-hashed from #1,500) is refused at it, not signed
    rmSync(join(dataDir, SIGNED_HEAD_FILE));
    const forged = await open(dataDir);
    const db = forged.server.db;
    const base = newest(forged);
    const rows = db.prepare('SELECT * FROM audit WHERE seq >= 1500 ORDER BY seq').all() as Entry[];
    tamper(db);
    const update = db.prepare('UPDATE audit SET target_id = ?, prev_hash = ?, hash = ? WHERE seq = ?');
    db.transaction(() => {
      let prev = rows[0].prev_hash as string;
      for (const r of rows) {
        const target_id = r.seq === 1500 ? 'key_forged' : r.target_id;
        const e = {
          id: r.id,
          at: r.at,
          actor: { subject: r.actor_subject, role: r.actor_role },
          action: r.action,
          target: { type: r.target_type, id: target_id, name: r.target_name },
          outcome: r.outcome,
          status: r.status,
          request_id: r.request_id,
          source_ip: r.source_ip,
          details: JSON.parse(r.details),
          seq: r.seq,
          prev_hash: prev,
        };
        update.run(target_id, prev, (prev = entryHash(e)), r.seq);
      }
    })();
    expect(await exportStatus(forged)).toBe(500);
    const chain = await chainComponent(forged);
    expect(chain.status).toBe('down');
    expect(chain.message).toContain(
      `the last checkpoint this appliance signed (#${thousands(base.seq)}): entry #${thousands(base.seq)} is not what this appliance signed`,
    );
  });

  it('a database restored from an older copy (its head behind the kept checkpoint) is refused, never signed', async () => {
    const t = await open();
    for (let i = 0; i < 3; i++)
      expect((await t.call('POST', '/gateway/keys', { body: { name: `old-${i}` } })).status).toBe(201);
    expect(await exportStatus(t)).toBe(200);
    const older = join(tempDir('aa-chain-backup'), 'backup.db');
    t.server.db.exec(`VACUUM INTO '${older}'`);
    const olderHead = headSeq(t);
    for (let i = 0; i < 3; i++)
      expect((await t.call('POST', '/gateway/keys', { body: { name: `new-${i}` } })).status).toBe(201);
    expect(await exportStatus(t)).toBe(200);
    await settled();
    const signed = kept(t);
    expect(signed.seq).toBe(olderHead + 4);
    const dataDir = t.dataDir;
    await t.close();

    for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) rmSync(join(dataDir, f), { force: true });
    cpSync(older, join(dataDir, DB_FILE));
    const restored = await open(dataDir);
    const before = restored.server.db.prepare('SELECT count(*) FROM audit_checkpoints').pluck().get();
    const res = await restored.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
    expect(res.status).toBe(500);
    expect(res.json.detail).toBe(
      // the head it would sign is the export's own entry, one after the copy's
      `the appliance will not sign its audit trail: the trail ends at #${thousands(olderHead + 1)}, before #${thousands(signed.seq)}: entries were removed`,
    );
    expect((await chainComponent(restored)).status).toBe('down');
    // nothing was signed, and the timer signs nothing either
    expect(checkpointIfStale(restored.server.db, Date.now() + 2 * CHECKPOINT_EVERY_MS)).toBeNull();
    expect(restored.server.db.prepare('SELECT count(*) FROM audit_checkpoints').pluck().get()).toBe(before);
    await settled();
    expect(kept(restored)).toEqual(signed);
  });
});

describe('migration 6', () => {
  it('chains the entries of a version 5 database in seq order and audits doing so', async () => {
    const dataDir = join(tempDir('aa-chain'), 'data');
    mkdirSync(dataDir);
    const db = new Database(join(dataDir, DB_FILE));
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    for (const m of migrations.filter((x) => x.version <= 5)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-01-01T00:00:00Z');
    }
    const insert = db.prepare(`INSERT INTO audit (id, at, at_ms, actor_subject, actor_role, action, target_type,
      target_id, target_name, outcome, status, request_id, source_ip, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    // written in an order that is not time order, as a clock stepped back would
    for (let i = 0; i < 30; i++) {
      const ms = Date.parse('2026-03-01T10:00:00Z') + ((i * 7) % 30) * 1000;
      insert.run(
        `aud_${i}`,
        new Date(ms).toISOString(),
        ms,
        'ben',
        i % 2 ? 'it_admin' : null,
        'channel.update',
        'channel',
        i % 3 ? 'slack' : null,
        null,
        'success',
        200,
        `req_${i}`,
        null,
        JSON.stringify({ i, enabled: i % 2 === 0 }),
      );
    }
    db.close();

    const t = await startTestServer({ dataDir });
    try {
      const res = await t.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
      const entries = jsonl(res.text);
      expectChained(entries);
      expect(entries.slice(0, 30).map((e) => e.id)).toEqual(Array.from({ length: 30 }, (_, i) => `aud_${i}`));
      expect(entries[30]).toMatchObject({
        seq: 31,
        actor: { subject: 'system', role: null },
        action: 'audit.chain.migrate',
        details: { entries: 30 },
      });
      // the migration's own entry is counted in the summaries like any other
      const summary = await t.call('GET', '/audit/summary?group_by=action');
      expect(JSON.stringify(summary.json)).toContain('audit.chain.migrate');
    } finally {
      await t.close();
    }
  });

  it('adds no entry to a new, empty database', () => {
    const db = openDatabase(join(tempDir('aa-chain'), 'data'));
    expect(db.prepare('SELECT count(*) FROM audit').pluck().get()).toBe(0);
    db.close();
  });
});

describe('the entry hash', () => {
  it('is the SHA-256 of the generic RFC 8785 canonicalization, whatever the fields hold', () => {
    const text = fc.string({ unit: 'binary', maxLength: 12 });
    const entry = fc.record({
      id: text,
      at: text,
      actor: fc.record({ subject: text, role: fc.constantFrom('it_admin' as const, 'auditor' as const, null) }),
      action: text,
      target: fc.record({ type: text, id: fc.option(text), name: fc.option(text) }),
      outcome: fc.constantFrom('success' as const, 'denied' as const, 'failed' as const),
      status: fc.integer({ min: -1000, max: 1000 }),
      request_id: text,
      source_ip: fc.option(text),
      details: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 })) as fc.Arbitrary<Record<string, unknown>>,
      seq: fc.integer({ min: 1, max: 2 ** 40 }),
      prev_hash: fc.constant(ZEROS),
    });
    fc.assert(
      fc.property(entry, (e) => {
        expect(entryHash(e)).toBe(sha256(Buffer.from(canonicalize(e)!, 'utf8')));
      }),
      { numRuns: 300 },
    );
  });
});

describe('docs/audit-chain.md', () => {
  const doc = readFileSync(new URL('../../docs/audit-chain.md', import.meta.url), 'utf8');
  const block = (after: string) =>
    doc
      .slice(doc.indexOf(after))
      .split('```')[1]
      .replace(/^[a-z]*\n/, '')
      .trim();
  /** The `code` on the line after `after`: `- name: \`value\`` */
  const inline = (after: string) => /`([^`]+)`/.exec(doc.slice(doc.indexOf(after) + after.length))![1];

  it("has a worked example this code computes: the entry's hash and the checkpoint's signature", () => {
    const entry = JSON.parse(block('Entry 1 as served:'));
    const { hash: _, ...unhashed } = entry;
    expect(entryHash(unhashed)).toBe(entry.hash);
    expect(block('Without `hash`, canonicalized')).toBe(canonicalize(unhashed));
    const pem = `${block('(never use it for anything else):')}\n`;
    const checkpoint: Checkpoint = JSON.parse(block('- checkpoint:'));
    expect(fingerprintOf(createPublicKey(pem))).toBe(checkpoint.key_fingerprint);
    expect(verifies(checkpoint, pem)).toBe(true);
    expect(checkpoint.hash).toBe(sha256(Buffer.from(block('Entry 2 links to it:'), 'utf8')));
    expect(displayFingerprint(checkpoint.key_fingerprint)).toBe('SHA256:fe81 2c12 f3ab 4ce6');
    // the statement example: its payload is the JCS of a whole-trail statement, and its signature verifies
    const payload = inline('- statement payload:');
    const statement = JSON.parse(payload);
    expect(canonicalize(statement)).toBe(payload);
    expect(statement).toMatchObject({ head: { seq: 2, hash: checkpoint.hash }, last_hash: checkpoint.hash, count: 2 });
    const signature = inline('- statement signature:');
    expect(verify(null, Buffer.from(payload, 'utf8'), createPublicKey(pem), Buffer.from(signature, 'base64'))).toBe(
      true,
    );
  });
});
