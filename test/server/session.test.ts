import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { VERSION } from '../../src/contract/version.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.close();
});

describe('session and authentication', () => {
  it('tells each role who it is and what it may do', async () => {
    const admin = await s.call('GET', '/session', { role: 'it_admin' });
    expect(admin.status).toBe(200);
    expect(admin.json).toMatchObject({ subject: 'alice-admin', role: 'it_admin' });
    expect(admin.json.capabilities).toContain('gateway.key.revoke');
    const auditor = await s.call('GET', '/session', { role: 'auditor' });
    expect(auditor.json.role).toBe('auditor');
    expect(auditor.json.capabilities).not.toContain('gateway.key.revoke');
    expect(auditor.json.capabilities).toContain('audit.export');
  });

  it('answers 401 problem+json without or with an unknown token', async () => {
    const none = await s.call('GET', '/session', { role: null });
    expect(none.status).toBe(401);
    expect(none.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(none.json).toMatchObject({ status: 401, code: 'SVC-ADMIN-401' });
    expect(none.json.request_id).toMatch(/^req_/);
    const bad = await s.call('GET', '/session', { token: 'aat_nope' });
    expect(bad.status).toBe(401);
  });

  it('answers 304 when the ETag still matches', async () => {
    const first = await s.call('GET', '/session');
    const again = await s.call('GET', '/session', { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('serves an OpenAPI document covering every spec route', async () => {
    const res = await s.call('GET', '/openapi.json', { role: null });
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe('3.1.0');
    for (const p of [
      '/v1/admin/connectors',
      '/v1/admin/gateway/keys/{id}/revoke',
      '/v1/admin/routing/{workload}',
      '/v1/admin/identity/test',
    ]) {
      expect(Object.keys(res.json.paths)).toContain(p);
    }
  });

  it('documents the 304 of every GET with a JSON answer, which the server gives', async () => {
    const doc = (await s.call('GET', '/openapi.json', { role: null })).json;
    const gets = Object.entries(
      doc.paths as Record<
        string,
        {
          get?: {
            parameters: { name: string; in: string }[];
            responses: Record<string, { headers?: object; content?: Record<string, unknown> }>;
          };
        }
      >,
    ).filter(([, ops]) => ops.get?.responses['200']?.content?.['application/json']);
    expect(gets.length).toBeGreaterThan(10);
    for (const [path, { get }] of gets) {
      expect(get!.responses, path).toHaveProperty('304');
      expect(get!.responses['200'].headers, path).toHaveProperty('ETag');
      expect(get!.parameters, path).toContainEqual(expect.objectContaining({ name: 'If-None-Match', in: 'header' }));
    }
    const first = await s.call('GET', '/models');
    expect((await s.call('GET', '/models', { headers: { 'if-none-match': String(first.headers.etag) } })).status).toBe(
      304,
    );
  });

  it('keeps VERSION equal to package.json', () => {
    expect(JSON.parse(readFileSync('package.json', 'utf8')).version).toBe(VERSION);
  });

  it('refuses writes to settings with 405 and Allow, audited', async () => {
    const res = await s.call('PUT', '/settings', { body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    const row = s.server.db.prepare("SELECT outcome, status FROM audit WHERE action = 'settings.update'").get();
    expect(row).toEqual({ outcome: 'failed', status: 405 });
  });
});
