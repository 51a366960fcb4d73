import { createPublicKey } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrail, type TrailFormat } from '../../src/audit-chain/read-trail.js';
import { verifyTrail, type Trust } from '../../src/audit-chain/verify-trail.js';
import { keyFingerprint } from '../../src/audit-chain/checkpoint.js';
import { recordAudit } from '../../src/server/audit.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tamper } from '../helpers/tamper.js';

/**
 * The export's signed statement as the server computes it (src/server/audit-chain/export-statement.ts),
 * read back by the verifier: the whole trail and a time range are runs; a time range the clock broke
 * (an entry written with an earlier time than the one before) is signed as a selection, which verifies;
 * a time range with entries gone is signed as the run it should be, and the verifier names them.
 */
let s: TestServer;
let trust: Trust;
const T0 = Date.UTC(2026, 10, 20, 12);
const MIN = 60_000;

function entry(i: number, atMs: number) {
  recordAudit(s.server.db, {
    actor: { subject: 'ana', role: 'it_admin' },
    action: 'gateway.key.create',
    target: { type: 'gateway_key', id: `key_s${i}`, name: null },
    outcome: 'success',
    status: 201,
    request_id: `req_s${i}`,
    source_ip: null,
    details: { i },
    at_ms: atMs,
  });
}

async function exportAndVerify(query: string) {
  const r = await s.call('GET', `/audit/export?format=jsonl${query}`, { role: 'auditor' });
  expect(r.status).toBe(200);
  const statement = JSON.parse(String(r.headers['audit-export-statement']));
  const format: { value?: TrailFormat } = {};
  const report = await verifyTrail(readTrail(Readable.from([r.text]), format), { statement, trust, format });
  return { statement: statement.statement, report };
}

beforeAll(async () => {
  s = await startTestServer();
  for (let i = 0; i < 10; i++) entry(i, T0 + i * MIN);
  // the clock steps back: the 11th entry is written with a time before the 10th's
  entry(10, T0 + 5 * MIN + 30_000);
  for (let i = 11; i < 15; i++) entry(i, T0 + i * MIN);
  const keys = await s.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' });
  const key = createPublicKey(keys.json.public_keys[0].public_key_pem);
  trust = { keys: new Map([[keyFingerprint(key), key]]), pinned: true, source: 'the key you pinned' };
});

afterAll(async () => {
  await s?.close();
});

const iso = (ms: number) => new Date(ms).toISOString();

describe("an export's signed statement", () => {
  it('the whole trail: the run from #1 to the head, verified', async () => {
    const { statement, report } = await exportAndVerify('');
    expect(statement).toMatchObject({ filters: {}, first_seq: 1, contiguous: true, digest: null });
    expect(statement.last_seq).toBe(statement.head.seq);
    expect(statement.count).toBe(statement.head.seq);
    expect(report.verdict).toBe('verified');
  });

  it('a time range the clock did not break: a run, verified', async () => {
    const { statement, report } = await exportAndVerify(`&start_time=${iso(T0)}&end_time=${iso(T0 + 4 * MIN)}`);
    expect(statement).toMatchObject({ first_seq: 1, last_seq: 4, count: 4, contiguous: true, digest: null });
    expect(report.verdict).toBe('verified');
    expect(report.proven).toMatch(/^every entry from .* entries #1–#4 \(4\), complete and unaltered/);
  });

  it('a time range the clock broke is signed as a selection, and verifies: no false alarm (review H2)', async () => {
    // from 00:06 to 00:12: #7-#10 and #12 are in it, #11 (written at 00:05:30) is not
    const { statement, report } = await exportAndVerify(
      `&start_time=${iso(T0 + 6 * MIN)}&end_time=${iso(T0 + 12 * MIN)}`,
    );
    expect(statement.contiguous).toBe(false);
    expect(statement.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(report.findings).toEqual([]);
    expect(report.verdict).toBe('verified');
    expect(report.notes[0]).toMatch(/^a time range the appliance could not sign as a run of the trail/);
  });

  it('a time range with an entry gone is signed as the run it should be: the verifier names what is missing', async () => {
    tamper(s.server.db, 'DELETE FROM audit WHERE seq = 3');
    const { statement, report } = await exportAndVerify(`&start_time=${iso(T0)}&end_time=${iso(T0 + 4 * MIN)}`);
    expect(statement).toMatchObject({ first_seq: 1, last_seq: 4, count: 4, contiguous: true });
    expect(report.verdict).toBe('broken');
    expect(report.findings).toContain('entry #3 missing');
  });
});
