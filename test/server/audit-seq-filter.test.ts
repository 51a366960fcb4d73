import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { entryHash } from '../helpers/audit-chain.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The audit list's `seq` filter: the one entry an inclusion proof is for (`audit prove`, `audit sample`). */
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
  const rows: AuditSeed[] = Array.from({ length: 20 }, (_, i) => ({
    actor: { subject: i % 2 ? 'ana' : 'bo', role: 'it_admin' },
    action: 'gateway.key.create',
    target: { type: 'gateway_key', id: `gk_${i}` },
    outcome: 'success',
    status: 201,
    request_id: `req_seq${i}`,
    source_ip: null,
    at_ms: Date.parse('2026-03-01T00:00:00Z') + i * 1000,
  }));
  insertAuditBatch(s.server.db, rows);
});
afterAll(() => s.close());

describe('GET /audit?seq=N', () => {
  it('answers the entry of that seq as served, to every role that reads the trail', async () => {
    const r = await s.call('GET', '/audit?seq=7', { role: 'auditor' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ has_more: false, next_cursor: null });
    expect(r.json.data).toHaveLength(1);
    expect(r.json.data[0]).toMatchObject({ seq: 7, request_id: 'req_seq6' });
    expect(entryHash(r.json.data[0])).toBe(r.json.data[0].hash);
  });

  it('answers none for a seq not in the trail or not matching the other filters; refuses a bad seq', async () => {
    expect((await s.call('GET', '/audit?seq=9999', { role: 'auditor' })).json.data).toEqual([]);
    expect((await s.call('GET', '/audit?seq=7&actor=ana', { role: 'auditor' })).json.data).toEqual([]);
    expect((await s.call('GET', '/audit?seq=8&actor=ana', { role: 'auditor' })).json.data).toHaveLength(1);
    for (const bad of ['0', '-1', 'x', '1.5', '99999999999999999999']) {
      const r = await s.call('GET', `/audit?seq=${bad}`, { role: 'auditor' });
      expect(r.status, bad).toBe(400);
      expect(r.headers['content-type']).toMatch(/problem\+json/);
    }
  });
});
