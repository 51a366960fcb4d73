import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, snapshot, type TestServer } from '../helpers/server.js';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { auditSpec } from '../../src/server/governance/audit-trail.js';
import { normalizeFilters } from '../../src/server/governance/filters.js';
import { explainPage } from '../../src/server/governance/keyset.js';

/** The audit trail's request_id filter: the entry one request produced, in the list, summary and export. */
let s: TestServer;
let created: { requestId: string; keyId: string };

beforeAll(async () => {
  s = await startTestServer();
  // older entries of the same action first, so that the one looked for is not simply the newest
  const rows: AuditSeed[] = Array.from({ length: 300 }, (_, i) => ({
    actor: { subject: 'ana', role: 'it_admin' },
    action: 'gateway.key.create',
    target: { type: 'gateway_key', id: `gk_seed${i}` },
    outcome: 'success',
    status: 201,
    request_id: `req_seed${i}`,
    source_ip: null,
    at_ms: Date.parse('2026-03-01T00:00:00Z') + i * 1000,
  }));
  insertAuditBatch(s.server.db, rows);
  const res = await s.call('POST', '/gateway/keys', { body: { name: 'by-request-id' } });
  expect(res.status).toBe(201);
  created = { requestId: String(res.headers['x-request-id']), keyId: res.json.id };
  // a later entry, so that the one looked for is not the newest of the trail either
  expect((await s.call('POST', '/gateway/keys', { body: { name: 'after-it' } })).status).toBe(201);
});
afterAll(() => s.close());

describe('the audit request_id filter', () => {
  it('finds exactly the entry a request produced, in the list, the summary and the export', async () => {
    expect(created.requestId).toMatch(/^req_/);
    const q = `request_id=${created.requestId}`;
    const list = await s.call('GET', `/audit?${q}`, { role: 'auditor' });
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.data[0]).toMatchObject({
      request_id: created.requestId,
      action: 'gateway.key.create',
      target: { type: 'gateway_key', id: created.keyId, name: 'by-request-id' },
      outcome: 'success',
      status: 201,
    });
    expect(list.json.has_more).toBe(false);

    const summary = await s.call('GET', `/audit/summary?${q}&group_by=action`, { role: 'auditor' });
    expect(summary.status).toBe(200);
    expect(summary.json).toMatchObject({ total: 1, groups: [{ key: 'gateway.key.create', count: 1 }] });

    const exported = await s.call('GET', `/audit/export?format=jsonl&${q}`, { role: 'auditor' });
    expect(exported.status).toBe(200);
    expect(exported.headers['audit-export-filtered']).toBe('true');
    const lines = exported.text.trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([list.json.data[0].id]);
  });

  it('finds nothing for a request id no entry has', async () => {
    const q = 'request_id=req_nosuchrequest0000';
    const list = await s.call('GET', `/audit?${q}`);
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ data: [], has_more: false, next_cursor: null });
    expect((await s.call('GET', `/audit/summary?${q}`)).json.total).toBe(0);
    const exported = await s.call('GET', `/audit/export?format=jsonl&${q}`);
    expect(exported.status).toBe(200);
    expect(exported.text).toBe('');
  });

  it.each([
    ['/audit', 'request_id=req%20x'],
    ['/audit', 'request_id='],
    ['/audit/summary', `request_id=${'r'.repeat(101)}`],
    ['/audit/export', 'request_id=%3Cscript%3E'],
  ])('refuses a bad value on %s (%s) with a 400 problem naming it, and stores nothing', async (path, q) => {
    const before = snapshot(s, 'audit');
    const res = await s.call('GET', `${path}?${q}`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json.code).toBe('SVC-ADMIN-400');
    expect(res.json.invalid_params.map((p: { name: string }) => p.name)).toContain('request_id');
    expect(snapshot(s, 'audit')).toEqual(before);
  });

  it('reaches its entries through the request_id index, in the list and in the export, without a scan', () => {
    const f = normalizeFilters(auditSpec, { request_id: created.requestId, outcome: 'success' });
    const exportSpec = { ...auditSpec, order: 'seq' as const };
    const plans = [
      ...explainPage(s.server.db, auditSpec, f, { limit: 51, dir: 'desc' }),
      ...explainPage(s.server.db, auditSpec, f, { limit: 51, dir: 'desc', after: { t: Date.now(), s: 10 } }),
      ...explainPage(s.server.db, exportSpec, f, { limit: 1000, dir: 'asc', maxSeq: 1e6 }),
    ];
    for (const plan of plans) {
      expect(plan).toMatch(/SEARCH audit USING INDEX audit_request_id_at \(request_id=/);
      expect(plan).not.toMatch(/\bSCAN\b/);
    }
  });
});
