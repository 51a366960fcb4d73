import { createPublicKey } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { readTrail, type TrailFormat } from '../../src/audit-chain/read-trail.js';
import { verifyTrail, type Trust } from '../../src/audit-chain/verify-trail.js';
import { keyFingerprint, type Checkpoint } from '../../src/audit-chain/checkpoint.js';
import { recordAudit } from '../../src/server/audit.js';
import { CHECKPOINT_EVERY_MS, checkpointIfStale } from '../../src/server/audit-chain/checkpoints.js';
import { SIGNED_HEAD_FILE } from '../../src/server/audit-chain/signed-head.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tamper } from '../helpers/tamper.js';

/**
 * Issue 37 §5: an export of a trail that nothing changed since its newest checkpoint signs none of its
 * own. It ends at that checkpoint (without its own entry), its statement says so and is dated when it
 * is signed, and every verifier still holds: nothing unsigned is vouched for, and a kept checkpoint
 * beyond it is a cut, never "exported before".
 */
const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function server(): Promise<{ s: TestServer; trust: Trust }> {
  const s = await startTestServer();
  servers.push(s);
  for (let i = 0; i < 3; i++)
    expect((await s.call('POST', '/gateway/keys', { body: { name: `k${i}` } })).status).toBe(201);
  const keys = await s.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' });
  const key = createPublicKey(keys.json.public_keys[0].public_key_pem);
  return { s, trust: { keys: new Map([[keyFingerprint(key), key]]), pinned: true, source: 'the key you pinned' } };
}

const checkpointCount = (s: TestServer) =>
  s.server.db.prepare('SELECT count(*) FROM audit_checkpoints').pluck().get() as number;
const headSeq = (s: TestServer) => s.server.db.prepare('SELECT max(seq) FROM audit').pluck().get() as number;

/** An export of the whole trail, as a live verify reads it: its checkpoint, statement and entries. */
async function exported(s: TestServer) {
  const r = await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
  expect(r.status).toBe(200);
  const checkpoint: Checkpoint = JSON.parse(String(r.headers['audit-checkpoint']));
  const signed = JSON.parse(String(r.headers['audit-export-statement']));
  const entries = r.text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { seq: number; action: string; request_id: string });
  return { r, checkpoint, signed, statement: signed.statement, entries, requestId: String(r.headers['x-request-id']) };
}

async function verify(
  text: string,
  signed: unknown,
  trust: Trust,
  o: { since?: Checkpoint; listed?: Checkpoint[] } = {},
) {
  const format: { value?: TrailFormat } = {};
  return verifyTrail(readTrail(Readable.from([text]), format), {
    statement: signed as never,
    trust,
    format,
    asked: {},
    since: o.since,
    signed: o.listed,
  });
}

describe('an export of a trail unchanged since its newest checkpoint', () => {
  it('signs none: it ends at that checkpoint without its own entry, dated now, and verifies', async () => {
    const { s, trust } = await server();
    const first = await exported(s);
    // a change before it: it signs its own entry, the head
    expect(first.checkpoint.seq).toBe(first.entries.at(-1)!.seq);
    expect(first.entries.at(-1)!.request_id).toBe(first.requestId);
    const signed = checkpointCount(s);

    for (let i = 0; i < 5; i++) {
      const again = await exported(s);
      expect(again.checkpoint).toEqual(first.checkpoint);
      expect(again.statement.head).toEqual({ seq: first.checkpoint.seq, hash: first.checkpoint.hash });
      expect(again.statement).toMatchObject({ count: first.checkpoint.seq, last_seq: first.checkpoint.seq });
      expect(Date.parse(again.statement.at)).toBeGreaterThanOrEqual(Date.parse(first.checkpoint.at));
      expect(again.statement.request_id).toBe(again.requestId);
      expect(again.entries.map((e) => e.seq)).toEqual(first.entries.map((e) => e.seq));
      // its own entry is in the trail, after the file's end
      const own = await s.call('GET', `/audit?request_id=${again.requestId}`, { role: 'auditor' });
      expect(own.json.data).toMatchObject([{ action: 'audit.export', seq: first.checkpoint.seq + 1 + i }]);
      const report = await verify(again.r.text, again.signed, trust, {
        since: first.checkpoint,
        listed: [first.checkpoint],
      });
      expect(report.findings).toEqual([]);
      expect(report.verdict).toBe('verified');
      expect(report.proven).toMatch(new RegExp(`^the whole trail, entries #1–#${first.checkpoint.seq} `));
    }
    expect(checkpointCount(s)).toBe(signed);
    // neither does a journal export, a count of refused requests or one of 429s
    expect((await s.call('GET', '/agent/journal/export?format=csv', { role: 'auditor' })).status).toBe(200);
    for (const action of ['auth.refused', 'rate.limited'])
      recordAudit(s.server.db, {
        actor: { subject: 'anonymous', role: null },
        action,
        target: { type: 'session', id: null },
        outcome: 'denied',
        status: action === 'auth.refused' ? 401 : 429,
        request_id: `req_${action}`,
        source_ip: '127.0.0.1',
        details: { count: 3 },
      });
    expect((await exported(s)).checkpoint).toEqual(first.checkpoint);
    expect(checkpointCount(s)).toBe(signed);

    // the ten-minute timer still signs what came since, exports' entries included
    const stale = checkpointIfStale(s.server.db, Date.now() + CHECKPOINT_EVERY_MS + 1000);
    expect(stale?.seq).toBe(headSeq(s));
    const after = await exported(s);
    expect(stale).toMatchObject(after.checkpoint);
    expect(after.entries.slice(-3).map((e) => e.action)).toEqual(['auth.refused', 'rate.limited', 'audit.export']);
  });

  it('signs its own head again after anything else was written: a change, a denied attempt', async () => {
    const { s } = await server();
    const first = await exported(s);
    expect(
      (await s.call('PUT', '/channels', { body: { channels: [{ id: 'chan_web', enabled: false }] } })).status,
    ).toBe(200);
    const changed = await exported(s);
    expect(changed.checkpoint.seq).toBe(first.checkpoint.seq + 2);
    expect(changed.entries.slice(-2).map((e) => e.action)).toEqual(['channel.update', 'audit.export']);

    expect((await s.call('POST', '/models/activate', { role: 'auditor', body: { model_id: 'x' } })).status).toBe(403);
    const denied = await exported(s);
    expect(denied.entries.slice(-2).map((e) => e.action)).toEqual(['model.activate', 'audit.export']);
    expect(denied.checkpoint.seq).toBe(denied.entries.at(-1)!.seq);
  });

  it('signs its own head when its filters select an entry written since: "who exported" is never an old snapshot', async () => {
    const { s } = await server();
    await exported(s);
    await exported(s); // nothing new: this one ends at the first's checkpoint, its own entry left after it
    const r = await s.call('GET', '/audit/export?format=jsonl&action=audit.export', { role: 'auditor' });
    expect(r.status).toBe(200);
    const lines = r.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string });
    // both exports before it and its own entry: the head was signed for it
    expect(lines.map((e) => e.action)).toEqual(['audit.export', 'audit.export', 'audit.export']);
    expect(JSON.parse(String(r.headers['audit-checkpoint'])).seq).toBe(headSeq(s));
  });

  it('still checks the trail first: an entry after the checkpoint altered is refused, never exported', async () => {
    const { s } = await server();
    const first = await exported(s);
    const second = await exported(s);
    expect(second.checkpoint).toEqual(first.checkpoint);
    tamper(s.server.db, `UPDATE audit SET actor_subject = 'someone-else' WHERE request_id = '${second.requestId}'`);
    const refused = await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
    expect(refused.status).toBe(500);
    expect(refused.json).toMatchObject({ code: 'SVC-AUDIT-CHAIN' });
    expect(refused.json.detail).toMatch(/does not match its hash: it was altered/);
  });

  it("cut back to an older checkpoint with the later ones removed: the auditor's kept checkpoint finds the cut", async () => {
    const { s, trust } = await server();
    const old = await exported(s);
    await exported(s); // an export's entry after the old checkpoint
    expect((await s.call('POST', '/gateway/keys', { body: { name: 'later' } })).status).toBe(201);
    const kept = (await exported(s)).checkpoint;
    expect(kept.seq).toBeGreaterThan(old.checkpoint.seq + 1);

    // someone with the data directory cuts the trail back to the old checkpoint's next entry (an export's) and
    // removes what would show it: the checkpoints after it and the appliance's record of what it signed
    tamper(
      s.server.db,
      `DELETE FROM audit WHERE seq > ${old.checkpoint.seq + 1}`,
      `DELETE FROM audit_checkpoints WHERE seq > ${old.checkpoint.seq}`,
    );
    rmSync(join(s.dataDir, SIGNED_HEAD_FILE), { force: true });

    const cut = await exported(s);
    expect(cut.checkpoint).toEqual(old.checkpoint); // reused: only exports' entries after it
    const listed = (await s.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' })).json.data;
    const report = await verify(cut.r.text, cut.signed, trust, { since: kept, listed });
    expect(report.verdict).toBe('broken');
    expect(report.findings.join('\n')).toMatch(/the trail was cut since/);
  });
});
