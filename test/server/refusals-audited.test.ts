import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Refusals found by an audit of the server (2026-11-22): each is answered for the caller's token
// and role, audited like any other failed attempt, and the audit keeps no part of the body.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

type AuditRow = {
  seq: number;
  action: string;
  outcome: string;
  status: number;
  actor_role: string;
  target_type: string;
  target_id: string | null;
  details: string;
};
const maxSeq = () => s.server.db.prepare('SELECT coalesce(max(seq), 0) FROM audit').pluck().get() as number;
const auditSince = (seq: number) =>
  s.server.db.prepare('SELECT * FROM audit WHERE seq > ? ORDER BY seq').all(seq) as AuditRow[];

describe('a path the router cannot read (bad percent-encoding, an id over 100 characters)', () => {
  const longId = 'k'.repeat(101);
  const paths = [`/gateway/keys/${longId}/revoke`, '/gateway/keys/%zz/revoke'];

  it('needs a valid token first: 401, not audited as the attempt (only counted, test/server/auth-refused.test.ts)', async () => {
    const seq = maxSeq();
    for (const [method, path] of [...paths.map((p) => ['POST', p]), ['GET', `/jobs/${longId}`]]) {
      const res = await s.call(method, path, { role: null });
      expect(res.status, path).toBe(401);
      expect(res.headers['www-authenticate']).toBeDefined();
    }
    // the minute's count of refusals may be written meanwhile, if the minute ended
    expect(auditSince(seq).filter((e) => e.action !== 'auth.refused')).toEqual([]);
  });

  it('is 403 for an auditor, audited as denied', async () => {
    for (const path of paths) {
      const seq = maxSeq();
      const res = await s.call('POST', path, { role: 'auditor' });
      expect(res.status, path).toBe(403);
      expect(res.json.code).toBe('SVC-ADMIN-403');
      expect(auditSince(seq)).toMatchObject([
        {
          action: 'gateway.key.revoke',
          outcome: 'denied',
          status: 403,
          actor_role: 'auditor',
          target_type: 'gateway.key',
          target_id: null,
        },
      ]);
    }
  });

  it('is 400 for a mutating role, audited as failed; a read is 400 and not audited', async () => {
    for (const path of paths) {
      const seq = maxSeq();
      const res = await s.call('POST', path, { role: 'it_admin' });
      expect(res.status, path).toBe(400);
      expect(res.json.code).toBe('SVC-ADMIN-400');
      expect(auditSince(seq)).toMatchObject([
        { action: 'gateway.key.revoke', outcome: 'failed', status: 400, actor_role: 'it_admin' },
      ]);
    }
    const seq = maxSeq();
    const read = await s.call('GET', `/jobs/${longId}`, { role: 'auditor' });
    expect(read.status).toBe(400);
    expect(auditSince(seq)).toEqual([]);
  });
});

describe('malformed JSON', () => {
  it('is 400 with the position only: no part of the body reaches the answer or the audit', async () => {
    const seq = maxSeq();
    const res = await s.call('POST', '/gateway/keys', { raw: '{"name": agk_SUPERSECRETvalue}' });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('agk_');
    const [row] = auditSince(seq);
    expect(row).toMatchObject({ action: 'gateway.key.create', outcome: 'failed', status: 400 });
    expect(row.details).not.toContain('agk_');
    expect(JSON.parse(row.details).detail).toMatch(/^malformed JSON/);
    const positioned = await s.call('POST', '/gateway/keys', { raw: '{"name": "x",}' });
    expect(positioned.json.detail).toMatch(/^malformed JSON at position \d+$/);
  });
});

describe('a write to the read-only settings', () => {
  it('needs a valid token before its body is read', async () => {
    const seq = maxSeq();
    expect((await s.call('PUT', '/settings', { role: null, raw: '{bad' })).status).toBe(401);
    expect((await s.call('PUT', '/settings', { role: null, raw: `{"x":"${'y'.repeat(70_000)}"}` })).status).toBe(401);
    expect(auditSince(seq)).toEqual([]);
  });

  it('is 405 whatever the body, and every attempt is audited', async () => {
    const seq = maxSeq();
    for (const raw of ['{bad', `{"x":"${'y'.repeat(70_000)}"}`, '{}']) {
      const res = await s.call('PUT', '/settings', { raw });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
    }
    expect(auditSince(seq).map((r) => [r.action, r.outcome, r.status])).toEqual(
      Array(3).fill(['settings.update', 'failed', 405]),
    );
  });
});

describe('invalid parameters', () => {
  it('names an unknown query parameter, not the body', async () => {
    const res = await s.call('GET', '/models?foo=1&bar=2');
    expect(res.status).toBe(400);
    expect(res.json.invalid_params).toEqual([
      { name: 'foo', reason: expect.any(String) },
      { name: 'bar', reason: expect.any(String) },
    ]);
  });

  it('names an unknown body field by its path', async () => {
    const res = await s.call('PUT', '/gateway/keys/key_x/quota', {
      body: { requests_per_minute: 1, tokens_per_minute: 1, tokens_per_day: 1, burst: 2 },
    });
    expect(res.status).toBe(400);
    expect(res.json.invalid_params).toContainEqual({ name: 'burst', reason: expect.any(String) });
  });
});

describe('HEAD on an export', () => {
  it('sends the headers and is not audited as an export', async () => {
    const seq = maxSeq();
    const head = await s.call('HEAD', '/audit/export?format=csv', { role: 'auditor' });
    expect(head.status).toBe(200);
    expect(head.headers['content-disposition']).toMatch(/attachment/);
    expect(auditSince(seq)).toEqual([]);
    const get = await s.call('GET', '/audit/export?format=csv', { role: 'auditor' });
    expect(get.status).toBe(200);
    expect(auditSince(seq).map((r) => r.action)).toEqual(['audit.export']);
  });
});

describe('the metadata boundary', () => {
  it('finds a content field at any depth: 422, not 400', async () => {
    let body: unknown = { prompt: 'hello' };
    for (let i = 0; i < 40; i++) body = { nested: body };
    const res = await s.call('PUT', '/agent/budgets', { body });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('SVC-BOUNDARY-1');
    expect(res.json.invalid_params[0].name).toMatch(/^nested\.nested\..*prompt$|^nested(\.nested)+/);
  });

  it('walks a body nested thousands of levels deep without failing', async () => {
    const raw = `${'['.repeat(20_000)}"x"${']'.repeat(20_000)}`;
    const res = await s.call('PUT', '/agent/budgets', { raw });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('SVC-ADMIN-400');
  });
});
