import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COSIGNATURE_V1,
  cosign,
  formatNote,
  formatVerifierKey,
  parseNote,
  type Note,
} from '../../src/audit-chain/note.js';
import type { AuditCheckpoint } from '../../src/contract/index.js';
import { ServerConfig } from '../../src/server/config.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * `audit_witnesses` in the appliance's config file: the witnesses whose cosignatures it keeps. With
 * the list, a token cannot take a checkpoint's places with made-up witnesses before the real ones.
 */
const witness = (name: string) => {
  const k = generateKeyPairSync('ed25519');
  return { name, privateKey: k.privateKey, vkey: formatVerifierKey(name, COSIGNATURE_V1, k.publicKey) };
};
const known = witness('witness.example/known');
const stranger = witness('witness.example/stranger');

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ config: (root) => fixtureConfig(root, { audit_witnesses: [known.vkey] }) });
  // something in the trail, and a checkpoint of it (an export signs one)
  await s.call('PUT', '/channels/chan_web', { body: { enabled: false } });
  await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
});
afterAll(async () => {
  await s?.close();
});

const newest = async (): Promise<AuditCheckpoint> =>
  (await s.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' })).json.data[0];
const cosigned = (c: AuditCheckpoint, w: { name: string; privateKey: KeyObject }) => {
  const note = parseNote(c.note!) as Note;
  const own = note.signatures.filter((x) => x.name === c.origin);
  return formatNote({ text: note.text, signatures: [...own, cosign(note.text, w.name, w.privateKey, 1_800_000_000)] });
};
const stored = () => s.server.db.prepare('SELECT name FROM audit_cosignatures').pluck().all();

describe('audit_witnesses', () => {
  it("keeps a listed witness's cosignature and refuses another's (422), storing nothing, audited as failed", async () => {
    const c = await newest();
    expect(c.note).toBeTruthy();
    const ok = await s.call('POST', '/audit/checkpoints/cosignatures', {
      role: 'auditor',
      body: { note: cosigned(c, known), witness_key: known.vkey },
    });
    expect(ok.status).toBe(201);
    const refused = await s.call('POST', '/audit/checkpoints/cosignatures', {
      role: 'auditor',
      body: { note: cosigned(c, stranger), witness_key: stranger.vkey },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.detail).toMatch(/is not one of the 1 witnesses this appliance accepts \(audit_witnesses/);
    expect(stored()).toEqual([known.name]);
    const entry = (await s.call('GET', '/audit?limit=1&action=audit.checkpoint.cosign')).json.data[0];
    expect(entry).toMatchObject({ outcome: 'failed', status: 422 });
  });

  it('the config file takes only witness verifier keys, at most 15', () => {
    const base = { connectors: [], models: [] };
    const bad = ServerConfig.safeParse({ ...base, audit_witnesses: ['not a key'] });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toMatch(/must be a witness verifier key/);
    expect(ServerConfig.safeParse({ ...base, audit_witnesses: [known.vkey] }).success).toBe(true);
    expect(ServerConfig.safeParse({ ...base, audit_witnesses: Array(16).fill(known.vkey) }).success).toBe(false);
  });
});
