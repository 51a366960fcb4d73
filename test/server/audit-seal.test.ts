import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryHash } from '../../src/audit-chain/canonical.js';
import { checkpointSignatureValid, keysByFingerprint } from '../../src/audit-chain/checkpoint.js';
import { CHAIN_REFUSED_CODE } from '../../src/contract/common.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tamper } from '../helpers/tamper.js';

/**
 * POST /v1/admin/audit/seal (issue 36 §3): an evidence pack's manifest sealed in the trail. The
 * appliance writes an audit.seal entry of the hash and signs a checkpoint of that entry in the same
 * transaction; the answer holds both, so the pack carries a proof anyone can check offline.
 */
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

describe('the seal', () => {
  it('an auditor seals a hash: 201, its audit.seal entry and a signed checkpoint of exactly that entry', async () => {
    const hash = sha('a manifest');
    const r = await s.call('POST', '/audit/seal', {
      role: 'auditor',
      body: { sha256: hash, purpose: 'evidence-pack' },
    });
    expect(r.status).toBe(201);
    const { entry, checkpoint } = r.json;
    expect(entry).toMatchObject({
      action: 'audit.seal',
      actor: { subject: 'aude-auditor', role: 'auditor' },
      target: { type: 'audit', id: null, name: null },
      outcome: 'success',
      status: 201,
      details: { sha256: hash, purpose: 'evidence-pack' },
    });
    // the checkpoint signs the entry as served: its hash recomputes from the answer's own fields
    expect(checkpoint.seq).toBe(entry.seq);
    expect(entryHash(entry)).toBe(checkpoint.hash);
    expect(entry.hash).toBe(checkpoint.hash);
    const keys = keysByFingerprint((await s.call('GET', '/audit/checkpoints', { role: 'auditor' })).json.public_keys);
    expect(checkpointSignatureValid(checkpoint, keys.get(checkpoint.key_fingerprint)!)).toBe(true);
    // it is the trail's entry, the head when it was signed, and the checkpoint is listed
    const head = (await s.call('GET', '/audit?limit=1', { role: 'auditor' })).json.data[0];
    expect(head).toEqual(entry);
    const listed = (await s.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' })).json.data[0];
    expect(listed).toEqual(checkpoint);
  });

  it('every role may seal', async () => {
    for (const role of ['it_admin', 'app_owner'] as const)
      expect(
        (await s.call('POST', '/audit/seal', { role, body: { sha256: sha(role), purpose: 'evidence-pack' } })).status,
      ).toBe(201);
  });

  it('a body that is not a sha256 and a purpose is refused (400), audited as a failed seal, nothing signed', async () => {
    const signed = () => s.server.db.prepare('SELECT count(*) FROM audit_checkpoints').pluck().get();
    const before = signed();
    for (const body of [
      { sha256: 'ABC', purpose: 'evidence-pack' },
      { sha256: sha('x'), purpose: 'curiosity' },
      { sha256: sha('x'), purpose: 'evidence-pack', extra: 1 },
    ]) {
      const r = await s.call('POST', '/audit/seal', { role: 'auditor', body });
      expect(r.status).toBe(400);
      const entry = (await s.call('GET', '/audit?limit=1', { role: 'auditor' })).json.data[0];
      expect(entry).toMatchObject({ action: 'audit.seal', outcome: 'failed', status: 400 });
    }
    expect(signed()).toBe(before);
  });

  it('a trail the appliance will not sign: 500 SVC-AUDIT-CHAIN, no sealed entry stays', async () => {
    const t = await startTestServer();
    try {
      expect((await t.call('POST', '/gateway/keys', { body: { name: 'k' } })).status).toBe(201);
      expect((await t.call('GET', '/audit/export?format=jsonl', { role: 'auditor' })).status).toBe(200);
      // an entry after the last signed checkpoint, changed in the database
      expect((await t.call('POST', '/gateway/keys', { body: { name: 'l' } })).status).toBe(201);
      const top = t.server.db.prepare('SELECT max(seq) FROM audit').pluck().get() as number;
      tamper(t.server.db, `UPDATE audit SET outcome = 'denied' WHERE seq = ${top}`);
      const r = await t.call('POST', '/audit/seal', {
        role: 'auditor',
        body: { sha256: sha('m'), purpose: 'evidence-pack' },
      });
      expect(r.status).toBe(500);
      expect(r.json.code).toBe(CHAIN_REFUSED_CODE);
      expect(r.json.detail).toMatch(/^the appliance will not sign its audit trail: /);
      const seals = t.server.db.prepare("SELECT outcome, status FROM audit WHERE action = 'audit.seal'").all() as {
        outcome: string;
        status: number;
      }[];
      expect(seals).toEqual([{ outcome: 'failed', status: 500 }]);
    } finally {
      await t.close();
    }
  });
});
