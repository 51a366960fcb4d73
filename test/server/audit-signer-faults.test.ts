import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Db } from '../../src/server/db/open.js';
import { recordAudit } from '../../src/server/audit.js';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import {
  CHECKPOINT_EVERY_ENTRIES,
  CHECKPOINT_EVERY_MS,
  checkpointIfStale,
} from '../../src/server/audit-chain/checkpoints.js';
import { chainHealth } from '../../src/server/audit-chain/health.js';
import { KEY_FILE } from '../../src/server/audit-chain/keys.js';
import { auditRotateKeyCommand } from '../../src/cli/audit-rotate-key.js';
import { tamper } from '../helpers/tamper.js';

/**
 * Issue 36 §11: background work never takes the server down, and a checkpoint that cannot be
 * signed never costs a mutation. A key the server cannot read (written by `audit rotate-key` as
 * another user) and a full disk, each met by a mutation, an export and the timer's retry.
 */
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

const head = (db: Db) => db.prepare('SELECT max(seq) FROM audit').pluck().get() as number;
const lastCheckpoint = (db: Db) =>
  db.prepare('SELECT seq, key_fingerprint FROM audit_checkpoints ORDER BY seq DESC, id DESC LIMIT 1').get() as {
    seq: number;
    key_fingerprint: string;
  };
const seed = (n: number): AuditSeed[] =>
  Array.from({ length: n }, (_, i) => ({
    actor: { subject: 'ben', role: 'app_owner' },
    action: 'routing.update',
    target: { type: 'routing', id: 'chat' },
    outcome: 'success',
    status: 200,
    request_id: `req_seed_${i}`,
    source_ip: null,
  }));

async function chainComponent(s: TestServer): Promise<{ status: string; message: string }> {
  const d = await s.call('GET', '/deployment', { role: 'auditor' });
  expect(d.status).toBe(200);
  return d.json.components.find((c: { name: string }) => c.name === 'audit-chain');
}

/**
 * The key file made unreadable to the server. As root nothing is unreadable by its mode, so the
 * file becomes a directory of that name (EISDIR); otherwise mode 0000 (EACCES), as for a key
 * written by another user.
 */
function makeUnreadable(file: string): { code: string; restore(): void } {
  const pem = readFileSync(file, 'utf8');
  if (process.getuid?.() === 0) {
    rmSync(file);
    mkdirSync(file, { mode: 0o700 });
    return {
      code: 'EISDIR',
      restore: () => {
        rmSync(file, { recursive: true });
        writeFileSync(file, pem, { mode: 0o600 });
      },
    };
  }
  chmodSync(file, 0);
  return { code: 'EACCES', restore: () => chmodSync(file, 0o600) };
}

describe('a signing key the server cannot read (rotated on the host as another user)', () => {
  it('costs no mutation: the change and its entry stand, /deployment says degraded, and the timer recovers once it can read it', async () => {
    const s = await startTestServer();
    servers.push(s);
    const db = s.server.db;
    expect((await s.call('POST', '/gateway/keys', { body: { name: 'before' } })).status).toBe(201);
    expect(await auditRotateKeyCommand(['rotate-key', '--data', s.dataDir])).toBe(0);
    const rotated = lastCheckpoint(db);
    const unreadable = makeUnreadable(join(s.dataDir, KEY_FILE));

    // an export needs a checkpoint now: it cannot have one, and says so
    const exported = await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
    expect(exported.status).toBe(500);
    let chain = await chainComponent(s);
    expect(chain.status).toBe('degraded');
    expect(chain.message).toContain(
      `audit checkpoints cannot be signed (${unreadable.code} on ${join(s.dataDir, KEY_FILE)})`,
    );
    expect(chain.message).toContain('retried every minute');

    // the mutation whose entry is the 1,000th since the last checkpoint, when one is due
    insertAuditBatch(db, seed(CHECKPOINT_EVERY_ENTRIES - (head(db) - lastCheckpoint(db).seq) - 1));
    const created = await s.call('POST', '/gateway/keys', { body: { name: 'while-unreadable' } });
    expect(created.status).toBe(201);
    expect(head(db) - rotated.seq).toBe(CHECKPOINT_EVERY_ENTRIES);
    const entry = db.prepare('SELECT action, outcome, status, target_id FROM audit WHERE seq = ?').get(head(db));
    expect(entry).toEqual({
      action: 'gateway.key.create',
      outcome: 'success',
      status: 201,
      target_id: created.json.id,
    });
    expect((await s.call('GET', '/gateway/keys')).json.data.map((k: { name: string }) => k.name)).toContain(
      'while-unreadable',
    );
    expect(lastCheckpoint(db)).toEqual(rotated);
    expect((await chainComponent(s)).status).toBe('degraded');

    // the timer tries again at every tick while it fails, and never throws
    expect(checkpointIfStale(db)).toBeNull();
    expect(chainHealth(db).state).toBe('failing');
    unreadable.restore();
    const signed = checkpointIfStale(db);
    expect(signed).toMatchObject({ seq: head(db), key_fingerprint: rotated.key_fingerprint });
    chain = await chainComponent(s);
    expect(chain).toMatchObject({ status: 'healthy', message: 'checkpoints signed' });
    expect((await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' })).status).toBe(200);
  });
});

describe('a full disk (SQLITE_FULL) when the timer signs', () => {
  it('is caught and reported, and the next tick signs once there is room', async () => {
    const s = await startTestServer();
    servers.push(s);
    const db = s.server.db;
    expect((await s.call('POST', '/gateway/keys', { body: { name: 'first' } })).status).toBe(201);
    expect((await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' })).status).toBe(200);

    // Each round: one more entry, then the database may not grow and the timer's tick ten minutes
    // on signs the head. A checkpoint fits in its table's last page for a while; the round whose
    // checkpoint needs a new page gets a real SQLITE_FULL from SQLite.
    let t = Date.now();
    const capped = (on: boolean) =>
      db.pragma(`max_page_count = ${on ? (db.pragma('page_count', { simple: true }) as number) : 1073741823}`);
    let rounds = 0;
    for (; chainHealth(db).state === 'ok' && rounds < 500; rounds++) {
      capped(false);
      recordAudit(db, {
        actor: { subject: 'ben', role: 'app_owner' },
        action: 'routing.update',
        target: { type: 'routing', id: 'chat' },
        outcome: 'success',
        status: 200,
        request_id: `req_round_${rounds}`,
        source_ip: null,
      });
      capped(true);
      t += CHECKPOINT_EVERY_MS + 1000;
      let signed: unknown;
      expect(() => (signed = checkpointIfStale(db, t))).not.toThrow();
      if (chainHealth(db).state === 'ok') expect(signed).toMatchObject({ seq: head(db) });
      else expect(signed).toBeNull();
    }
    expect(chainHealth(db)).toMatchObject({ state: 'failing' });
    expect(chainHealth(db).message).toMatch(
      /^audit checkpoints cannot be signed \(SQLITE_FULL\); retried every minute$/,
    );
    const chain = await chainComponent(s);
    expect(chain.status).toBe('degraded');
    expect(lastCheckpoint(db).seq).toBe(head(db) - 1);

    // still full: tried again, still failing, still up
    expect(checkpointIfStale(db, (t += 60_000))).toBeNull();
    capped(false);
    expect(checkpointIfStale(db, (t += 60_000))).toMatchObject({ seq: head(db) });
    expect((await chainComponent(s)).status).toBe('healthy');
  });

  it('a tick that finds the database closed (a server stopping) returns and records why', async () => {
    const s = await startTestServer();
    const db = s.server.db;
    await s.close();
    expect(checkpointIfStale(db)).toBeNull();
    expect(chainHealth(db)).toMatchObject({ state: 'failing' });
  });
});

describe('audit rotate-key on a trail the signer refuses', () => {
  it('rotates nothing: one line, the old key file kept, no key registered', async () => {
    const s = await startTestServer();
    servers.push(s);
    for (let i = 0; i < 3; i++)
      expect((await s.call('POST', '/gateway/keys', { body: { name: `r-${i}` } })).status).toBe(201);
    expect((await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' })).status).toBe(200);
    const keyBefore = readFileSync(join(s.dataDir, KEY_FILE));
    const keys = () => s.server.db.prepare('SELECT count(*) FROM audit_keys').pluck().get();
    const keysBefore = keys();
    // an entry the appliance signed, rewritten in the database behind its back
    tamper(s.server.db, "UPDATE audit SET outcome = 'failed' WHERE seq = (SELECT max(seq) FROM audit)");
    await expect(auditRotateKeyCommand(['rotate-key', '--data', s.dataDir])).rejects.toThrow(
      /^the key was not rotated: the audit trail does not extend the last checkpoint signed: entry #\d+ is not what this appliance signed/,
    );
    expect(readFileSync(join(s.dataDir, KEY_FILE)).equals(keyBefore)).toBe(true);
    expect(keys()).toBe(keysBefore);
  });
});
