import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient } from '../../src/client/api-client.js';
import { exportTypeProblem } from '../../src/client/download.js';
import { NOT_THIS_API, REDIRECTED, TransportError } from '../../src/client/errors.js';
import { CONTENT_TYPES } from '../../src/server/governance/export-file.js';
import { createSessionStore, resolveSession } from '../../src/dashboard/state/session.js';
import { tempDir } from '../helpers/fixtures.js';
import { json, startHostile, type HostileServer } from '../helpers/hostile-server.js';
import { answer, nginxWelcome, plainText, redirect, unrelatedJson } from '../helpers/not-an-appliance.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Answers that are not from an appliance (a web server's page, text, unrelated JSON, a redirect
 * to a sign-in proxy) are failures with words naming them, never an empty list or a written
 * export. Real peers on loopback; the real server for what must still work.
 */
let s: TestServer;
let h: HostileServer;
/** where the redirects point: it must never see a request (the token stays with the appliance) */
let elsewhere: HostileServer;

beforeAll(async () => {
  s = await startTestServer();
  h = await startHostile();
  elsewhere = await startHostile();
  elsewhere.set('*', json({ data: [], next_cursor: null, has_more: false }));
});
afterAll(async () => {
  await h?.close();
  await elsewhere?.close();
  await s?.close();
});

/** Calls `fn` with a client of the peer answering `reply` for every path; returns what it threw. */
async function failureOf(
  reply: Parameters<HostileServer['set']>[1],
  fn: (c: ApiClient) => Promise<unknown>,
): Promise<TransportError> {
  h.set('*', reply);
  const c = new ApiClient({ url: h.url, token: 'aat_secret-token-for-tests' });
  try {
    const err = await fn(c).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, 'the call should have failed').toBeInstanceOf(TransportError);
    return err as TransportError;
  } finally {
    await c.close();
    h.clear();
  }
}

const listKeys = (c: ApiClient) => c.call('listKeys');

describe('a redirect is a failure naming its target, never followed', () => {
  it('302 to a sign-in proxy (empty body) on a list: the target is named, it gets no request', async () => {
    const before = elsewhere.requests.length;
    const err = await failureOf(redirect(`${elsewhere.url}/oauth2/sign_in?rd=%2Fv1%2Fadmin&state=abc`), listKeys);
    expect(err.causeCode).toBe(REDIRECTED);
    expect(err.message).toBe(
      `the answer to GET /gateway/keys is a redirect (302) to ${elsewhere.url}/oauth2/sign_in?…; not followed, the token goes only to the appliance's URL (a sign-in proxy in front of it, or not the appliance's URL?)`,
    );
    expect(err.message).not.toContain('state=abc'); // sign-in state stays out of the words
    expect(elsewhere.requests.length).toBe(before);
  });

  it('a relative Location is named as a full URL; 301, 307 and 308 fail the same way', async () => {
    for (const status of [301, 307, 308]) {
      const err = await failureOf(redirect('/login', status), (c) => c.call('deployment'));
      expect(err.message).toContain(`the answer to GET /deployment is a redirect (${status}) to ${h.url}/login;`);
    }
  });

  it('a redirect without a Location, and a 304 to a request with nothing cached, fail too', async () => {
    expect((await failureOf(answer(302, { 'content-length': '0' }, ''), listKeys)).message).toContain(
      'is a redirect (302) without a Location;',
    );
    expect((await failureOf(answer(304, {}, ''), listKeys)).message).toBe(
      'the answer to GET /gateway/keys is 304 Not Modified, though nothing was offered to revalidate',
    );
  });

  it('a redirect answering an export download: a failure, no file', async () => {
    const dir = tempDir('aa-foreign');
    const dest = join(dir, 'audit.csv');
    const err = await failureOf(redirect(`${elsewhere.url}/sso`), (c) =>
      c.download('exportAudit', { format: 'csv' }, dest),
    );
    expect(err.message).toMatch(
      new RegExp(`^the answer to GET /audit/export is a redirect \\(302\\) to ${elsewhere.url}/sso;`),
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('an export download must be an export', () => {
  const attempt = async (reply: Parameters<HostileServer['set']>[1], format: 'csv' | 'jsonl') => {
    const dir = tempDir('aa-foreign');
    const dest = join(dir, `audit.${format}`);
    const err = await failureOf(reply, (c) => c.download('exportAudit', { format }, dest));
    expect(readdirSync(dir), 'neither the file nor a partial one').toEqual([]);
    return err.message;
  };

  it("nginx's welcome page (200 text/html): named, nothing written", async () => {
    expect(await attempt(nginxWelcome(), 'csv')).toBe(
      'the answer is not an export from an appliance: Content-Type text/html, where a csv export is text/csv (an HTML page: Welcome to nginx!)',
    );
  });

  it('text/plain, unrelated JSON, octet-stream, no Content-Type, the other format: each refused', async () => {
    expect(await attempt(plainText(), 'csv')).toBe(
      'the answer is not an export from an appliance: Content-Type text/plain; charset=utf-8, where a csv export is text/csv',
    );
    expect(await attempt(unrelatedJson(), 'jsonl')).toBe(
      'the answer is not an export from an appliance: Content-Type application/json, where a jsonl export is application/x-ndjson',
    );
    expect(await attempt(answer(200, { 'content-type': 'application/octet-stream' }, 'a,b\n'), 'csv')).toContain(
      'Content-Type application/octet-stream,',
    );
    expect(await attempt(answer(200, {}, 'a,b\n'), 'csv')).toBe(
      'the answer is not an export from an appliance: no Content-Type, where a csv export is text/csv',
    );
    expect(await attempt(answer(200, { 'content-type': 'text/csv' }, 'a,b\n'), 'jsonl')).toContain(
      'Content-Type text/csv, where a jsonl export is application/x-ndjson',
    );
  });

  it('every type the reference server sends is accepted for its format, and only for it', () => {
    for (const [format, type] of Object.entries(CONTENT_TYPES)) {
      expect(exportTypeProblem(format, type)).toBeUndefined();
      expect(exportTypeProblem(format === 'csv' ? 'jsonl' : 'csv', type)).toBeDefined();
    }
    expect(exportTypeProblem('csv', 'TEXT/CSV;charset=UTF-8')).toBeUndefined();
    expect(exportTypeProblem('jsonl', 'application/jsonl')).toBeUndefined();
  });

  it('the reference server: csv and jsonl exports are written', async () => {
    const c = new ApiClient({ url: s.url, token: s.tokens.auditor });
    try {
      await s.call('PUT', '/channels', { body: { channels: [{ id: 'chan_web', enabled: true }] } });
      const dir = tempDir('aa-foreign');
      const csv = await c.download('exportAudit', { format: 'csv' }, join(dir, 'a.csv'));
      expect(csv.contentType).toMatch(/^text\/csv/);
      expect(readFileSync(csv.path, 'utf8')).toMatch(/^id,at,/);
      const jsonl = await c.download('exportJournal', { format: 'jsonl' }, join(dir, 'j.jsonl'));
      expect(jsonl.contentType).toBe('application/x-ndjson');
      expect(existsSync(jsonl.path)).toBe(true);
    } finally {
      await c.close();
    }
  });
});

describe('JSON that is not this API is not shown as an empty list', () => {
  /** `value` as JSON (a string is sent as the raw body) */
  const foreign = async (value: unknown, route: 'listKeys' | 'deployment' | 'getBudgets' = 'listKeys') => {
    const err = await failureOf(json(value), (c) => c.call(route));
    expect(err.causeCode).toBe(NOT_THIS_API);
    expect(err.kind).toBe('protocol');
    return err.message;
  };

  it('a paged list without its items: an object without data, data not a list, a scalar, null, an empty body', async () => {
    expect(await foreign({ hello: 'world' })).toBe(
      'the answer to GET /gateway/keys is not from the appliance API: a JSON object without a "data" list (its fields: "hello")',
    );
    expect(await foreign({})).toBe(
      'the answer to GET /gateway/keys is not from the appliance API: a JSON object without a "data" list (it is empty)',
    );
    expect(await foreign({ status: 'ok', next_cursor: null, has_more: false })).toContain(
      'without a "data" list (its fields: "status", "next_cursor", "has_more")',
    );
    expect(await foreign({ data: null })).toContain('a JSON object whose "data" is null, not a list');
    expect(await foreign({ items: { a: 1 } })).toContain('a JSON object whose "items" is an object, not a list');
    expect(await foreign('"ok"')).toContain('a JSON string where a list belongs');
    expect(await foreign(42)).toContain('a JSON number where a list belongs');
    expect(await foreign(null)).toContain('null where a list belongs');
    const empty = await failureOf(answer(200, { 'content-type': 'application/json' }, ''), listKeys);
    expect(empty.message).toBe(
      'the answer to GET /gateway/keys is not from the appliance API: an empty answer where a list belongs',
    );
  });

  it('an object answer sharing no field with the contract, or not an object', async () => {
    expect(await foreign({ hello: 'world' }, 'deployment')).toBe(
      'the answer to GET /deployment is not from the appliance API: a JSON object with none of the fields of this answer (its fields: "hello")',
    );
    expect(await foreign([{ status: 'healthy' }], 'deployment')).toContain('a JSON array where an object belongs');
    expect(await foreign({}, 'getBudgets')).toContain('none of the fields of this answer (it is empty)');
  });

  it('still tolerated: a bare array, an items envelope, camelCase, missing paging and optional fields', async () => {
    const key = {
      id: 'key_1',
      name: 'ci',
      prefix: 'sk-ab',
      state: 'active',
      createdAt: '2026-01-01T00:00:00Z',
      quota: { rpm: 5 },
    };
    for (const value of [[key], { items: [key] }, { Data: [key], nextCursor: null }, { data: [] }]) {
      h.set('*', json(value));
      const c = new ApiClient({ url: h.url, token: 't' });
      const r = await c.call('listKeys');
      expect(r.data.data.length).toBe(Array.isArray(value) || 'items' in value || 'Data' in value ? 1 : 0);
      expect(r.data.has_more).toBe(false);
      await c.close();
    }
    // an object with some of its fields: drawn, with the rest reported as contract issues
    h.set('*', json({ status: 'degraded', hostName: 'x' }));
    const c = new ApiClient({ url: h.url, token: 't' });
    const r = await c.call('deployment');
    expect(r.data.status).toBe('degraded');
    expect(r.issues.length).toBeGreaterThan(0);
    await c.close();
    h.clear();
  });

  it('the reference server: every list and object answer passes', async () => {
    const c = new ApiClient({ url: s.url, token: s.tokens.it_admin });
    try {
      for (const route of [
        'listKeys',
        'listConnectors',
        'listChannels',
        'listModels',
        'listRouting',
        'listAudit',
        'listJournal',
        'getBudgets',
        'deployment',
        'installPlan',
        'settings',
        'session',
        'usage',
      ] as const) {
        const r = await c.call(route);
        expect(r.issues, route).toEqual([]);
      }
      expect((await c.call('createKey', { body: { name: 'foreign-test' } })).data.secret).toBeTruthy();
    } finally {
      await c.close();
    }
  });

  it('GET /session answering unrelated JSON degrades as a missing route does (the role from the token, else unknown)', async () => {
    h.set('*', unrelatedJson());
    const store = createSessionStore();
    await resolveSession(new ApiClient({ url: h.url, token: 't' }), 't', store);
    expect(store.getState()).toMatchObject({ role: null, subject: null, source: 'unknown', resolved: true });
    h.clear();
  });
});
