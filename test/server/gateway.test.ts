import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { snapshot, type TestServer } from '../helpers/server.js';
import { startWatchedServer, type SecretWatch } from '../helpers/secret-watch.js';
import { recordUsage } from '../../src/server/gateway/metering.js';
import { createGatewayKey } from '../../src/server/gateway/keys.js';

let s: TestServer;
/** every secret this suite ever saw: none may reach the disk, the audit trail or the logs */
let watch: SecretWatch;
let secrets: string[];
beforeAll(async () => {
  ({ server: s, watch } = await startWatchedServer());
  secrets = watch.secrets;
});
afterAll(async () => {
  await s.close();
});

const create = async (name: string, quota?: Record<string, number | null>) => {
  const res = await s.call('POST', '/gateway/keys', { body: quota ? { name, quota } : { name } });
  expect(res.status).toBe(201);
  secrets.push(res.json.secret);
  return res.json as {
    id: string;
    secret: string;
    prefix: string;
    quota: Record<string, number | null>;
    status: string;
  };
};
const gateway = (
  workload: string,
  secret: string | undefined,
  body: unknown = { messages: [{ role: 'user', content: 'hi' }] },
) => s.call('POST', `/v1/gateway/${workload}`, { role: null, token: secret, body });
const auditOf = (action: string, targetId: string | null) =>
  s.server.db
    .prepare(
      'SELECT outcome, status, actor_subject, target_type, target_id, details FROM audit WHERE action = ? AND target_id IS ? ORDER BY seq',
    )
    .all(action, targetId) as {
    outcome: string;
    status: number;
    actor_subject: string;
    target_type: string;
    target_id: string | null;
    details: string;
  }[];

/** Quota windows are UTC minutes: keep a test's calls inside one of them. */
async function awayFromMinuteEdge() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 55_000 || intoMinute < 1000)
    await new Promise((r) => setTimeout(r, ((61_000 - intoMinute) % 60_000) + 50));
}

describe('gateway keys', () => {
  it('creates a key whose secret is shown once and never listed', async () => {
    const key = await create('billing-app', { requests_per_minute: 100 });
    expect(key.secret).toMatch(/^agk_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({
      name: 'billing-app',
      status: 'active',
      prefix: key.secret.slice(0, 12),
      created_by: 'alice-admin',
      revoked_at: null,
      last_used_at: null,
    });
    expect(key.quota).toEqual({ requests_per_minute: 100, tokens_per_minute: null, tokens_per_day: null });
    const list = await s.call('GET', '/gateway/keys', { role: 'auditor' });
    expect(list.status).toBe(200);
    expect(list.json.data.find((k: { id: string }) => k.id === key.id)).toMatchObject({
      name: 'billing-app',
      prefix: key.prefix,
    });
    expect(list.text).not.toContain(key.secret);
    expect(list.json.data[0]).not.toHaveProperty('secret');
    const [entry] = auditOf('gateway.key.create', key.id);
    expect(entry).toMatchObject({
      outcome: 'success',
      status: 201,
      target_type: 'gateway_key',
      actor_subject: 'alice-admin',
    });
    expect(JSON.parse(entry.details)).toEqual({ name: 'billing-app', quota: key.quota });
  });

  it('lists newest first, paged by cursor', async () => {
    const a = await create('page-a');
    const b = await create('page-b');
    const first = await s.call('GET', '/gateway/keys?limit=1');
    expect(first.json.data.map((k: { id: string }) => k.id)).toEqual([b.id]);
    expect(first.json.has_more).toBe(true);
    const second = await s.call('GET', `/gateway/keys?limit=1&after=${first.json.next_cursor}`);
    expect(second.json.data.map((k: { id: string }) => k.id)).toEqual([a.id]);
    expect((await s.call('GET', '/gateway/keys?after=garbage')).status).toBe(400);
  });

  it('refuses a second active key with the same name (409), allows it once the first is revoked', async () => {
    const first = await create('Support Bot');
    const before = snapshot(s, 'gateway_keys');
    const dup = await s.call('POST', '/gateway/keys', { body: { name: 'support bot' } });
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe('SVC-ADMIN-409');
    expect(snapshot(s, 'gateway_keys')).toEqual(before);
    await s.call('POST', `/gateway/keys/${first.id}/revoke`);
    await create('Support Bot');
  });

  it('revokes terminally and idempotently; the gateway then refuses the key', async () => {
    const key = await create('to-revoke');
    expect((await gateway('chat', key.secret)).status).toBe(200);
    const res = await s.call('POST', `/gateway/keys/${key.id}/revoke`, { role: 'app_owner' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: key.id, status: 'revoked' });
    expect(res.json.revoked_at).toBeTruthy();
    const again = await s.call('POST', `/gateway/keys/${key.id}/revoke`);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(res.json);
    expect(auditOf('gateway.key.revoke', key.id).map((e) => JSON.parse(e.details).already_revoked)).toEqual([
      false,
      true,
    ]);

    const refused = await gateway('chat', key.secret);
    expect(refused.status).toBe(401);
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.json.code).toBe('SVC-ADMIN-401');
    expect((await s.call('POST', '/gateway/keys/key_unknown/revoke')).status).toBe(404);
  });

  it('replaces a quota, audits from/to, and refuses it on revoked (409) or unknown (404) keys', async () => {
    const key = await create('quota-target', { tokens_per_day: 5000 });
    const quota = { requests_per_minute: 10, tokens_per_minute: 2000, tokens_per_day: null };
    const res = await s.call('PUT', `/gateway/keys/${key.id}/quota`, { body: quota });
    expect(res.status).toBe(200);
    expect(res.json.quota).toEqual(quota);
    expect(JSON.parse(auditOf('gateway.key.quota', key.id)[0].details)).toEqual({
      from: { requests_per_minute: null, tokens_per_minute: null, tokens_per_day: 5000 },
      to: quota,
    });
    expect((await s.call('PUT', '/gateway/keys/key_unknown/quota', { body: quota })).status).toBe(404);
    await s.call('POST', `/gateway/keys/${key.id}/revoke`);
    const before = snapshot(s, 'gateway_keys');
    const onRevoked = await s.call('PUT', `/gateway/keys/${key.id}/quota`, {
      body: { ...quota, requests_per_minute: 1 },
    });
    expect(onRevoked.status).toBe(409);
    expect(onRevoked.json.code).toBe('SVC-ADMIN-409');
    expect(snapshot(s, 'gateway_keys')).toEqual(before);
    expect(auditOf('gateway.key.quota', key.id).at(-1)).toMatchObject({ outcome: 'failed', status: 409 });
  });

  it('answers 400 with invalid_params for bad quota and create bodies, storing nothing', async () => {
    const key = await create('quota-validation');
    const before = snapshot(s, 'gateway_keys');
    const full = { requests_per_minute: 1, tokens_per_minute: 1, tokens_per_day: 1 };
    const bad: [unknown, string][] = [
      [{ ...full, requests_per_minute: -1 }, 'requests_per_minute'],
      [{ ...full, tokens_per_minute: 1.5 }, 'tokens_per_minute'],
      [{ ...full, tokens_per_day: '100' }, 'tokens_per_day'],
      [{ ...full, burst: 3 }, ''],
      [{ requests_per_minute: 1, tokens_per_minute: 1 }, 'tokens_per_day'],
    ];
    for (const [body, field] of bad) {
      const res = await s.call('PUT', `/gateway/keys/${key.id}/quota`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.code).toBe('SVC-ADMIN-400');
      expect(res.json.invalid_params.length).toBeGreaterThan(0);
      if (field) expect(res.json.invalid_params.map((p: { name: string }) => p.name)).toContain(field);
    }
    for (const body of [
      {},
      { name: '' },
      { name: 'x', quota: { requests_per_minute: -5 } },
      { name: 'x', owner: 'me' },
    ]) {
      const res = await s.call('POST', '/gateway/keys', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.invalid_params.length).toBeGreaterThan(0);
    }
    expect(snapshot(s, 'gateway_keys')).toEqual(before);
  });

  it('refuses a key name that holds a credential (it would be stored and audited), and nothing is written', async () => {
    const before = snapshot(s, 'gateway_keys');
    for (const name of [
      `agk_${'A'.repeat(43)}`,
      `note aat_${'b'.repeat(43)}`,
      '-----BEGIN PRIVATE KEY-----',
      `eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.${'c'.repeat(20)}`,
    ]) {
      const res = await s.call('POST', '/gateway/keys', { body: { name } });
      expect(res.status, name).toBe(400);
      expect(res.json.invalid_params).toEqual([expect.objectContaining({ name: 'name' })]);
      expect(JSON.stringify(res.json)).not.toContain(name);
    }
    expect(snapshot(s, 'gateway_keys')).toEqual(before);
    // a name that only mentions one is fine
    expect(
      (await s.call('POST', '/gateway/keys', { body: { name: 'note: Bearer abcdefghijklmnopqrstuvwxyz' } })).status,
    ).toBe(201);
  });

  it('forbids every key mutation to an auditor: 403, storage unchanged, denied attempt audited', async () => {
    const key = await create('auditor-target');
    const before = snapshot(s, 'gateway_keys');
    const attempts: [string, string, unknown, string, string | null][] = [
      ['POST', '/gateway/keys', { name: 'sneaky' }, 'gateway.key.create', null],
      ['POST', `/gateway/keys/${key.id}/revoke`, undefined, 'gateway.key.revoke', key.id],
      [
        'PUT',
        `/gateway/keys/${key.id}/quota`,
        { requests_per_minute: 0, tokens_per_minute: 0, tokens_per_day: 0 },
        'gateway.key.quota',
        key.id,
      ],
    ];
    for (const [method, path, body, action, targetId] of attempts) {
      const res = await s.call(method, path, { role: 'auditor', body });
      expect(res.status).toBe(403);
      expect(res.json.code).toBe('SVC-ADMIN-403');
      expect(auditOf(action, targetId).filter((e) => e.outcome === 'denied')).toEqual([
        expect.objectContaining({ status: 403, actor_subject: 'aude-auditor', target_type: 'gateway_key' }),
      ]);
    }
    expect(snapshot(s, 'gateway_keys')).toEqual(before);
  });
});

describe('gateway front door', () => {
  it('authenticates only gateway keys', async () => {
    expect((await gateway('chat', undefined)).status).toBe(401);
    expect((await gateway('chat', 'agk_' + 'A'.repeat(43))).status).toBe(401);
    expect((await gateway('chat', s.tokens.it_admin)).status).toBe(401);
    const res = await gateway('chat', 'nonsense');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('resolves the workload routing and meters the call from the request size and max_tokens', async () => {
    const key = await create('front-door');
    const body = { max_tokens: 300, messages: [{ role: 'user', content: 'x'.repeat(2000) }] };
    const bytes = Buffer.byteLength(JSON.stringify(body));
    const res = await gateway('summarize', key.secret, body);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      workload: 'summarize',
      model_id: 'mistral-7b',
      key_id: key.id,
      served: false,
      metered: { requests: 1, input_tokens: Math.ceil(bytes / 4), output_tokens: 300 },
    });
    expect((await gateway('chat', key.secret)).json.model_id).toBe('llama-3.1-8b'); // null follows the default model
    expect((await gateway('chat', key.secret, { max_tokens: 1_000_000 })).json.metered.output_tokens).toBe(4096);
    const listed = (await s.call('GET', '/gateway/keys')).json.data.find((k: { id: string }) => k.id === key.id);
    expect(Date.now() - Date.parse(listed.last_used_at)).toBeLessThan(10_000);
  });

  it('follows the active model when the workload is routed to null, as GET /routing shows', async () => {
    const key = await create('active-model');
    expect((await s.call('POST', '/models/activate', { body: { model_id: 'mistral-7b' } })).status).toBe(200);
    const routing = (await s.call('GET', '/routing')).json.data.find(
      (r: { workload: string }) => r.workload === 'embed',
    );
    expect(routing).toMatchObject({ model_id: null, effective_model_id: 'mistral-7b' });
    expect((await gateway('embed', key.secret)).json.model_id).toBe('mistral-7b');
    expect((await s.call('POST', '/models/activate', { body: { model_id: 'llama-3.1-8b' } })).status).toBe(200);
    expect((await gateway('embed', key.secret)).json.model_id).toBe('llama-3.1-8b');
  });

  it('answers 404 for an unknown workload, counted as its rejection, and 400 for bad bodies, metering nothing', async () => {
    const key = await create('front-door-errors');
    const rows = () => s.server.db.prepare('SELECT COUNT(*) FROM usage_minutes WHERE key_id = ?').pluck().get(key.id);
    const unknown = await gateway('translate', key.secret);
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('SVC-ADMIN-404');
    expect(
      s.server.db
        .prepare('SELECT sum(requests), sum(rejected), sum(rejected_workload) FROM usage_minutes WHERE key_id = ?')
        .raw()
        .get(key.id),
    ).toEqual([0, 1, 1]);
    s.server.db.prepare('DELETE FROM usage_minutes WHERE key_id = ?').run(key.id);
    expect(
      (await s.call('POST', '/v1/gateway/chat', { role: null, token: key.secret, raw: '{"messages": [' })).status,
    ).toBe(400);
    for (const max_tokens of [-1, 2.5, '10']) {
      const res = await gateway('chat', key.secret, { max_tokens });
      expect(res.status).toBe(400);
      expect(res.json.invalid_params[0].name).toBe('max_tokens');
    }
    expect(rows()).toBe(0);
  });

  it('carries content up to 1 MiB (no metadata boundary), any content type, and refuses more with 413', async () => {
    const key = await create('big-bodies');
    const big = await gateway('chat', key.secret, { prompt: 'y'.repeat(200_000) });
    expect(big.status).toBe(200);
    expect(big.json.metered.input_tokens).toBe(Math.ceil((200_000 + 14) / 4));
    const text = await s.call('POST', '/v1/gateway/chat', {
      role: null,
      token: key.secret,
      raw: 'plain words',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(200);
    expect(text.json.metered).toEqual({ requests: 1, input_tokens: 3, output_tokens: 0 });
    const untyped = await s.call('POST', '/v1/gateway/chat', {
      role: null,
      token: key.secret,
      raw: 'abc',
      headers: { 'content-type': '' },
    });
    expect(untyped.status).toBe(400);
    expect(untyped.json.code).toBe('SVC-ADMIN-400');
    const tooBig = await gateway('chat', key.secret, { prompt: 'z'.repeat(1024 * 1024) });
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.code).toBe('SVC-ADMIN-413');
  });

  it('enforces requests_per_minute: the second call is 429 with Retry-After, counted as rejected', async () => {
    await awayFromMinuteEdge();
    const key = await create('one-per-minute', { requests_per_minute: 1 });
    expect((await gateway('chat', key.secret)).status).toBe(200);
    const second = await gateway('chat', key.secret);
    expect(second.status).toBe(429);
    expect(second.json.code).toBe('SVC-ADMIN-429');
    const retry = Number(second.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(Math.abs(retry - (60 - (Date.now() % 60_000) / 1000))).toBeLessThan(3);
    const usage = await s.call('GET', `/gateway/usage?key_id=${key.id}`);
    expect(usage.json.data[0]).toMatchObject({ key_id: key.id, requests: 1, rejected: 1 });
  });

  it('lets concurrent calls through only up to requests_per_minute', async () => {
    await awayFromMinuteEdge();
    const key = await create('concurrent', { requests_per_minute: 5 });
    const results = await Promise.all(Array.from({ length: 20 }, () => gateway('chat', key.secret)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(15);
  });

  it('enforces tokens_per_minute and tokens_per_day', async () => {
    await awayFromMinuteEdge();
    const perMinute = await create('tokens-per-minute', { tokens_per_minute: 100 });
    expect((await gateway('chat', perMinute.secret, { max_tokens: 60 })).status).toBe(200); // 60 + ceil(16/4)
    const over = await gateway('chat', perMinute.secret, { max_tokens: 60 });
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await gateway('chat', perMinute.secret, { max_tokens: 20 })).status).toBe(200);

    const perDay = await create('tokens-per-day', { tokens_per_day: 50 });
    expect((await gateway('chat', perDay.secret, { max_tokens: 30 })).status).toBe(200); // 34 of 50
    const day = await gateway('chat', perDay.secret, { max_tokens: 30 });
    expect(day.status).toBe(429);
    const toMidnight = 86_400 - (Date.now() % 86_400_000) / 1000;
    expect(Math.abs(Number(day.headers['retry-after']) - toMidnight)).toBeLessThan(3);
  });

  it('gives no Retry-After to a call its quota can never let through', async () => {
    await awayFromMinuteEdge();
    const none = await create('no-calls', { requests_per_minute: 0 });
    const blocked = await gateway('chat', none.secret);
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBeUndefined();
    expect(blocked.json.detail).toContain('lets no call through');
    const small = await create('small-quota', { tokens_per_minute: 100, tokens_per_day: 200 });
    for (const max_tokens of [150, 300]) {
      const alone = await gateway('chat', small.secret, { max_tokens });
      expect(alone.status).toBe(429);
      expect(alone.headers['retry-after']).toBeUndefined();
      expect(alone.json.detail).toContain('this call alone needs');
    }
  });

  it('refuses a body without a Content-Type, and answers an unreadable workload as unknown, not as a bad key', async () => {
    const key = await create('front-door-edges');
    const untyped = await request(`${s.url}/v1/gateway/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}` },
      body: 'hello',
    });
    expect(untyped.statusCode).toBe(400);
    expect(((await untyped.body.json()) as { detail: string }).detail).toBe(
      'a request body needs a Content-Type header',
    );
    const long = await gateway('w'.repeat(101), key.secret);
    expect(long.status).toBe(404);
    const badEscape = await gateway('%zz', key.secret);
    expect(badEscape.status).toBe(400);
    expect(badEscape.headers['www-authenticate']).toBeUndefined();
  });
});

describe('gateway usage', () => {
  it('shows the gateway calls of a key in the current hour bucket', async () => {
    await awayFromMinuteEdge();
    const key = await create('usage-live');
    const calls = [{ max_tokens: 10 }, { max_tokens: 20, note: 'abc' }, {}];
    let input = 0;
    for (const body of calls) input += (await gateway('chat', key.secret, body)).json.metered.input_tokens;
    const res = await s.call('GET', `/gateway/usage?key_id=${key.id}`, { role: 'auditor' });
    expect(res.status).toBe(200);
    expect(res.json.bucket).toBe('hour');
    expect(Date.parse(res.json.end_time) - Date.parse(res.json.start_time)).toBe(24 * 3600_000);
    // the range ends with the current minute, so polling an unchanged appliance gets 304
    expect(Date.parse(res.json.end_time) % 60_000).toBe(0);
    expect(Date.parse(res.json.end_time) - Date.now()).toBeGreaterThan(0);
    expect(Date.parse(res.json.end_time) - Date.now()).toBeLessThanOrEqual(60_000);
    const again = await s.call('GET', `/gateway/usage?key_id=${key.id}`, {
      role: 'auditor',
      headers: { 'if-none-match': String(res.headers.etag) },
    });
    expect(again.status).toBe(304);
    const [entry] = res.json.data;
    expect(entry).toMatchObject({ key_id: key.id, requests: 3, rejected: 0, input_tokens: input, output_tokens: 30 });
    // every hour the last 24 h touch, zeros included: 25, or 24 when the range starts on the hour
    const hoursTouched =
      Math.floor((Date.parse(res.json.end_time) - 1) / 3600_000) -
      Math.floor(Date.parse(res.json.start_time) / 3600_000) +
      1;
    expect([24, 25]).toContain(hoursTouched);
    expect(entry.buckets).toHaveLength(hoursTouched);
    const hourStart = new Date(Math.floor(Date.now() / 3600_000) * 3600_000).toISOString().replace('.000Z', 'Z');
    expect(entry.buckets.at(-1)).toEqual({
      start_time: hourStart,
      requests: 3,
      rejected: 0,
      input_tokens: input,
      output_tokens: 30,
      // this appliance has no pricing: every call is of unknown cost
      cost: 0,
      unpriced_requests: 3,
    });
    expect(entry.buckets.slice(0, -1).every((b: { requests: number }) => b.requests === 0)).toBe(true);
    const all = await s.call('GET', '/gateway/usage');
    expect(all.json.data.map((d: { key_id: string }) => d.key_id)).toContain(key.id);
  });

  it('aggregates stored minutes into UTC hour and day buckets over [start, end)', async () => {
    const { key } = createGatewayKey(s.server.db, { name: 'usage-history', created_by: 'test' });
    const minute = (isoTime: string) => Date.parse(isoTime) / 60_000;
    recordUsage(s.server.db, key.id, minute('2026-03-01T09:59:00Z'), {
      requests: 1,
      input_tokens: 1,
      output_tokens: 1,
    });
    recordUsage(s.server.db, key.id, minute('2026-03-01T10:00:00Z'), {
      requests: 2,
      rejected_by: { tokens_per_day: 1 },
      input_tokens: 10,
      output_tokens: 5,
    });
    recordUsage(s.server.db, key.id, minute('2026-03-01T10:00:00Z'), { requests: 1, input_tokens: 1 });
    recordUsage(s.server.db, key.id, minute('2026-03-01T12:30:00Z'), {
      requests: 4,
      input_tokens: 40,
      output_tokens: 8,
    });
    recordUsage(s.server.db, key.id, minute('2026-03-02T00:00:00Z'), {
      requests: 9,
      input_tokens: 90,
      output_tokens: 9,
    });

    const hourly = await s.call(
      'GET',
      `/gateway/usage?key_id=${key.id}&start_time=2026-03-01T10:00:00Z&end_time=2026-03-01T13:00:00Z`,
    );
    expect(hourly.status).toBe(200);
    expect(hourly.json.data).toEqual([
      {
        key_id: key.id,
        // the key as it is now, so that a client names and judges it without reading the keys list
        // (its quota never changed: no refusals since a change to count)
        key: {
          name: 'usage-history',
          status: 'active',
          quota: key.quota,
          quota_changed_at: key.quota_changed_at,
          rejected_since_quota_change: null,
        },
        requests: 7,
        rejected: 1,
        input_tokens: 51,
        output_tokens: 13,
        // minutes written without their spend (as before costs were kept): their cost is unknown
        cost: 0,
        unpriced_requests: 7,
        rejected_by: {
          requests_per_minute: 0,
          tokens_per_minute: 0,
          tokens_per_day: 1,
          revoked: 0,
          unknown_workload: 0,
          expired: 0,
          rotated: 0,
          budget: 0,
        },
        rejected_workloads: [],
        // each bucket counts its rejections too: a chart shows when they stopped
        buckets: [
          {
            start_time: '2026-03-01T10:00:00Z',
            requests: 3,
            rejected: 1,
            input_tokens: 11,
            output_tokens: 5,
            cost: 0,
            unpriced_requests: 3,
          },
          {
            start_time: '2026-03-01T11:00:00Z',
            requests: 0,
            rejected: 0,
            input_tokens: 0,
            output_tokens: 0,
            cost: 0,
            unpriced_requests: 0,
          },
          {
            start_time: '2026-03-01T12:00:00Z',
            requests: 4,
            rejected: 0,
            input_tokens: 40,
            output_tokens: 8,
            cost: 0,
            unpriced_requests: 4,
          },
        ],
      },
    ]);
    // a range starting in an hour's last minute lists that hour too (it overlaps the range); the
    // row of 09:59 starts before the range, so it is not counted
    const offHour = await s.call(
      'GET',
      `/gateway/usage?key_id=${key.id}&start_time=2026-03-01T09:59:30Z&end_time=2026-03-01T12:59:30Z`,
    );
    expect(offHour.json.data[0].requests).toBe(7);
    expect(
      offHour.json.data[0].buckets.map((b: { start_time: string; requests: number }) => [
        b.start_time.slice(11, 13),
        b.requests,
      ]),
    ).toEqual([
      ['09', 0],
      ['10', 3],
      ['11', 0],
      ['12', 4],
    ]);
    const daily = await s.call(
      'GET',
      `/gateway/usage?key_id=${key.id}&start_time=2026-03-01T00:00:00Z&end_time=2026-03-03T00:00:00Z&bucket=day`,
    );
    expect(daily.json.data[0].requests).toBe(17);
    expect(daily.json.data[0].buckets.map((b: { requests: number }) => b.requests)).toEqual([8, 9]);
    const empty = await s.call(
      'GET',
      `/gateway/usage?key_id=${key.id}&start_time=2026-03-05T00:00:00Z&end_time=2026-03-06T00:00:00Z`,
    );
    expect(empty.json.data).toEqual([]);
  });

  it('refuses bad ranges and unknown keys', async () => {
    const bad = [
      '/gateway/usage?start_time=2026-03-02T00:00:00Z&end_time=2026-03-01T00:00:00Z',
      '/gateway/usage?start_time=2026-03-01T00:00:00Z&end_time=2026-03-01T00:00:00Z',
      '/gateway/usage?start_time=2020-01-01T00:00:00Z&end_time=2026-01-01T00:00:00Z',
      '/gateway/usage?bucket=week',
      '/gateway/usage?start_time=yesterday',
      `/gateway/usage?start_time=${new Date(Date.now() + 3600_000).toISOString()}`,
    ];
    for (const path of bad) {
      const res = await s.call('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.json.invalid_params.length, path).toBeGreaterThan(0);
    }
    expect(
      (await s.call('GET', '/gateway/usage?start_time=2020-01-01T00:00:00Z&end_time=2022-01-01T00:00:00Z&bucket=day'))
        .status,
    ).toBe(200);
    expect((await s.call('GET', '/gateway/usage?key_id=key_unknown')).status).toBe(404);
  });
});

describe('gateway rejections by cause', () => {
  const usageOf = async (keyId: string) => {
    const res = await s.call('GET', `/gateway/usage?key_id=${keyId}`, { role: 'auditor' });
    expect(res.status).toBe(200);
    return res.json.data[0] as {
      requests: number;
      rejected: number;
      rejected_by: Record<string, number>;
      buckets: object[];
    };
  };
  const none = {
    requests_per_minute: 0,
    tokens_per_minute: 0,
    tokens_per_day: 0,
    revoked: 0,
    unknown_workload: 0,
    expired: 0,
    rotated: 0,
    budget: 0,
  };

  it('names the limit of each 429, and counts 401 and 404 of a known key against it', async () => {
    await awayFromMinuteEdge();
    const rpm = await create('cause-rpm', { requests_per_minute: 1 });
    expect((await gateway('chat', rpm.secret)).status).toBe(200);
    expect((await gateway('chat', rpm.secret)).status).toBe(429);
    expect((await gateway('chat', rpm.secret)).status).toBe(429);

    const tpm = await create('cause-tpm', { tokens_per_minute: 100 });
    expect((await gateway('chat', tpm.secret, { max_tokens: 60 })).status).toBe(200);
    expect((await gateway('chat', tpm.secret, { max_tokens: 60 })).status).toBe(429);

    const tpd = await create('cause-tpd', { requests_per_minute: 100, tokens_per_day: 50 });
    expect((await gateway('chat', tpd.secret, { max_tokens: 30 })).status).toBe(200);
    expect((await gateway('chat', tpd.secret, { max_tokens: 30 })).status).toBe(429);

    const stray = await create('cause-workload');
    expect((await gateway('chat', stray.secret)).status).toBe(200);
    for (const w of ['translate', 'rerank']) expect((await gateway(w, stray.secret)).status).toBe(404);

    const gone = await create('cause-revoked');
    expect((await gateway('chat', gone.secret)).status).toBe(200);
    expect((await s.call('POST', `/gateway/keys/${gone.id}/revoke`)).status).toBe(200);
    const lastUsed = s.server.db.prepare('SELECT last_used_at FROM gateway_keys WHERE id = ?').pluck().get(gone.id);
    for (let i = 0; i < 3; i++) expect((await gateway('chat', gone.secret)).status).toBe(401);
    // a revoked key is refused before its workload is looked up: still the key's refusal
    expect((await gateway('translate', gone.secret)).status).toBe(401);
    expect(s.server.db.prepare('SELECT last_used_at FROM gateway_keys WHERE id = ?').pluck().get(gone.id)).toBe(
      lastUsed,
    );

    expect(await usageOf(rpm.id)).toMatchObject({
      requests: 1,
      rejected: 2,
      rejected_by: { ...none, requests_per_minute: 2 },
    });
    expect(await usageOf(tpm.id)).toMatchObject({
      requests: 1,
      rejected: 1,
      rejected_by: { ...none, tokens_per_minute: 1 },
    });
    expect(await usageOf(tpd.id)).toMatchObject({
      requests: 1,
      rejected: 1,
      rejected_by: { ...none, tokens_per_day: 1 },
    });
    expect(await usageOf(stray.id)).toMatchObject({
      requests: 1,
      rejected: 2,
      rejected_by: { ...none, unknown_workload: 2 },
    });
    const revoked = await usageOf(gone.id);
    expect(revoked).toMatchObject({ requests: 1, rejected: 4, rejected_by: { ...none, revoked: 4 } });
    // a bucket's requests are the served ones; its refusals are counted beside them
    expect(revoked.buckets.at(-1)).toEqual({
      start_time: expect.any(String),
      requests: 1,
      rejected: 4,
      input_tokens: expect.any(Number),
      output_tokens: 0,
      cost: 0,
      unpriced_requests: 1,
    });
  });

  it('counts nothing for an unknown secret, which belongs to no key', async () => {
    const before = snapshot(s, 'usage_minutes');
    expect((await gateway('chat', `agk_${'B'.repeat(43)}`)).status).toBe(401);
    expect((await gateway('translate', `agk_${'C'.repeat(43)}`)).status).toBe(401);
    expect(snapshot(s, 'usage_minutes')).toEqual(before);
  });
});

describe('secrets', () => {
  it('never reach the database files, the audit trail or the logs; nor do bearer tokens or gateway bodies', async () => {
    const key = await create('secret-check');
    const marker = 'TOP-SECRET-PROMPT-4d1f';
    expect((await gateway('chat', key.secret, { prompt: marker })).status).toBe(200);
    expect(secrets.length).toBeGreaterThan(10);
    expect(watch.logs().length).toBeGreaterThan(1000); // trace logging really ran
    expect(watch.dataFiles().some((f) => f.length > 0)).toBe(true);
    expect(readdirSync(s.dataDir).some((f) => f.endsWith('-wal'))).toBe(true);
    await watch.expectNowhere([...Object.values(s.tokens), marker]);
  });
});
