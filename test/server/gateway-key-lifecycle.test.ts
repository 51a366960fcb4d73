import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot, type TestServer } from '../helpers/server.js';
import { startWatchedServer, type SecretWatch } from '../helpers/secret-watch.js';
import { until } from '../helpers/until.js';

/**
 * Issue 41 §1–2 on the real server: a key's expiry (refused 401 at the front door, counted as
 * `expired`) and rotation with a grace (the old secret works until the grace ends, then is refused
 * and counted as `rotated`; a second rotation ends the first grace). Secrets never reach the
 * database files, the audit trail or the logs.
 */
let s: TestServer;
/** every secret this suite saw, new and old: none may reach the disk, the audit trail or the logs */
let watch: SecretWatch;
let secrets: string[];
beforeAll(async () => {
  ({ server: s, watch } = await startWatchedServer());
  secrets = watch.secrets;
});
afterAll(async () => {
  await s?.close();
});

interface Key {
  id: string;
  name: string;
  prefix: string;
  secret: string;
  expires_at: string | null;
  rotated_at: string | null;
  previous_prefix: string | null;
  previous_valid_until: string | null;
  quota: Record<string, number | null>;
}

const create = async (name: string, extra: Record<string, unknown> = {}): Promise<Key> => {
  const res = await s.call('POST', '/gateway/keys', { body: { name, ...extra } });
  expect(res.status, res.text).toBe(201);
  secrets.push(res.json.secret);
  return res.json as Key;
};
const rotate = async (id: string, body?: unknown) => {
  const res = await s.call('POST', `/gateway/keys/${id}/rotate`, body === undefined ? {} : { body });
  if (res.status === 200) secrets.push(res.json.secret);
  return res;
};
const gateway = (secret: string) =>
  s.call('POST', '/v1/gateway/chat', { role: null, token: secret, body: { messages: [] } });
const rejectedBy = async (keyId: string) => {
  const res = await s.call('GET', `/gateway/usage?key_id=${keyId}&bucket=minute&start_time=${hourAgo()}`);
  expect(res.status).toBe(200);
  return (res.json.data[0]?.rejected_by ?? {}) as Record<string, number>;
};
const hourAgo = () => new Date(Date.now() - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
const auditOf = (action: string, id: string) =>
  s.server.db
    .prepare(
      'SELECT outcome, status, actor_subject, details FROM audit WHERE action = ? AND target_id = ? ORDER BY seq',
    )
    .all(action, id) as { outcome: string; status: number; actor_subject: string; details: string }[];
const inSeconds = (sec: number) => new Date(Date.now() + sec * 1000).toISOString();

describe('expiry', () => {
  it('is set at creation, refused when in the past or malformed, and leaves storage unchanged', async () => {
    const at = new Date(Date.now() + 7 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const key = await create('expiring-at-creation', { expires_at: at });
    expect(key.expires_at).toBe(at);
    const before = snapshot(s, 'gateway_keys');
    for (const expires_at of ['2020-01-01T00:00:00Z', 'next week', '2026-13-01T00:00:00Z', 42]) {
      const res = await s.call('POST', '/gateway/keys', { body: { name: 'never-made', expires_at } });
      expect(res.status, String(expires_at)).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json.invalid_params?.[0]?.name).toMatch(/expires_at/);
    }
    expect(snapshot(s, 'gateway_keys')).toEqual(before);
  });

  it('takes an offset, keeps UTC, and is changed or cleared later, audited with from and to', async () => {
    const key = await create('expiry-later');
    const res = await s.call('PUT', `/gateway/keys/${key.id}/expiry`, {
      body: { expires_at: '2099-06-01T12:00:00+02:00' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.expires_at).toBe('2099-06-01T10:00:00Z');
    const cleared = await s.call('PUT', `/gateway/keys/${key.id}/expiry`, { body: { expires_at: null } });
    expect(cleared.json.expires_at).toBeNull();
    const entries = auditOf('gateway.key.expiry', key.id);
    expect(entries.map((e) => [e.outcome, JSON.parse(e.details)])).toEqual([
      ['success', { from: null, to: '2099-06-01T10:00:00Z' }],
      ['success', { from: '2099-06-01T10:00:00Z', to: null }],
    ]);
    // a past time, a missing field, an unknown key: refused, nothing changed
    const before = snapshot(s, 'gateway_keys');
    expect(
      (await s.call('PUT', `/gateway/keys/${key.id}/expiry`, { body: { expires_at: '2001-01-01T00:00:00Z' } })).status,
    ).toBe(400);
    expect((await s.call('PUT', `/gateway/keys/${key.id}/expiry`, { body: {} })).status).toBe(400);
    expect((await s.call('PUT', '/gateway/keys/key_nope/expiry', { body: { expires_at: null } })).status).toBe(404);
    expect(snapshot(s, 'gateway_keys')).toEqual(before);
  });

  it('refuses an expired key at the front door with 401, counted as the cause expired', async () => {
    // two seconds: time for the first call to pass before it expires, on a busy machine too
    const key = await create('expires-soon', { expires_at: inSeconds(2) });
    expect((await gateway(key.secret)).status).toBe(200);
    const refused = await until('the key to expire', async () => {
      const r = await gateway(key.secret);
      return r.status === 401 ? r : null;
    });
    expect(refused.json.detail).toBe('gateway key expired');
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
    const by = await rejectedBy(key.id);
    expect(by.expired).toBeGreaterThanOrEqual(1);
    expect(by.revoked).toBe(0);
    // an expired key is not rotated (the new secret would be refused too), but it may be given a later expiry
    expect((await rotate(key.id)).status).toBe(409);
    const renewed = await s.call('PUT', `/gateway/keys/${key.id}/expiry`, { body: { expires_at: inSeconds(3600) } });
    expect(renewed.status).toBe(200);
    expect((await gateway(key.secret)).status).toBe(200);
  });

  it('is frozen on a revoked key', async () => {
    const key = await create('revoked-expiry');
    await s.call('POST', `/gateway/keys/${key.id}/revoke`);
    const res = await s.call('PUT', `/gateway/keys/${key.id}/expiry`, { body: { expires_at: inSeconds(3600) } });
    expect(res.status).toBe(409);
  });
});

describe('rotation', () => {
  it('gives a new secret for the same key, name, quota and history; the old one works during the grace', async () => {
    const key = await create('rotating', { quota: { requests_per_minute: 1000 } });
    expect((await gateway(key.secret)).status).toBe(200);
    const res = await rotate(key.id, { grace_seconds: 3600 });
    expect(res.status, res.text).toBe(200);
    const rotated = res.json as Key;
    expect(rotated).toMatchObject({ id: key.id, name: key.name, quota: key.quota, previous_prefix: key.prefix });
    expect(rotated.secret).toMatch(/^agk_[A-Za-z0-9_-]{43}$/);
    expect(rotated.secret).not.toBe(key.secret);
    expect(rotated.prefix).toBe(rotated.secret.slice(0, 12));
    expect(Date.parse(rotated.previous_valid_until!) - Date.parse(rotated.rotated_at!)).toBe(3600_000);
    // both work, and both count as the same key's use
    expect((await gateway(key.secret)).status).toBe(200);
    expect((await gateway(rotated.secret)).status).toBe(200);
    const usage = await s.call('GET', `/gateway/usage?key_id=${key.id}&bucket=minute&start_time=${hourAgo()}`);
    expect(usage.json.data[0].requests).toBe(3);
    // the list says it too, without any secret
    const listed = (await s.call('GET', '/gateway/keys')).json.data.find((k: Key) => k.id === key.id);
    expect(listed).toMatchObject({ prefix: rotated.prefix, previous_prefix: key.prefix });
    expect(listed.secret).toBeUndefined();
  });

  it('refuses the old secret once the grace ends (401, cause rotated); without a body the grace is a day', async () => {
    const key = await create('short-grace');
    const res = await rotate(key.id, { grace_seconds: 1 });
    expect(res.status).toBe(200);
    const refused = await until('the grace to end', async () => {
      const r = await gateway(key.secret);
      return r.status === 401 ? r : null;
    });
    expect(refused.json.detail).toMatch(/replaced by a rotation/);
    expect((await gateway(res.json.secret)).status).toBe(200);
    expect((await rejectedBy(key.id)).rotated).toBeGreaterThanOrEqual(1);

    const dayKey = await create('default-grace');
    const day = await rotate(dayKey.id);
    expect(day.status, day.text).toBe(200);
    expect(Date.parse(day.json.previous_valid_until) - Date.parse(day.json.rotated_at)).toBe(86_400_000);
  });

  it('with grace 0 refuses the old secret at once', async () => {
    const key = await create('no-grace');
    const res = await rotate(key.id, { grace_seconds: 0 });
    expect(res.status).toBe(200);
    expect((await gateway(key.secret)).status).toBe(401);
    expect((await gateway(res.json.secret)).status).toBe(200);
    expect((await rejectedBy(key.id)).rotated).toBe(1);
  });

  it('a second rotation during a grace ends the first: only the newest previous secret stays valid', async () => {
    const key = await create('rotated-twice');
    const first = await rotate(key.id, { grace_seconds: 3600 });
    const second = await rotate(key.id, { grace_seconds: 3600 });
    expect(second.status).toBe(200);
    expect((await gateway(key.secret)).status).toBe(401); // the first grace ended
    expect((await gateway(first.json.secret)).status).toBe(200); // the newest previous secret, in its grace
    expect((await gateway(second.json.secret)).status).toBe(200);
    expect((await rejectedBy(key.id)).rotated).toBe(1);
    const entries = auditOf('gateway.key.rotate', key.id).map((e) => JSON.parse(e.details));
    expect(entries).toEqual([
      expect.objectContaining({ previous_prefix: key.prefix, new_prefix: first.json.prefix, grace_seconds: 3600 }),
      expect.objectContaining({
        previous_prefix: first.json.prefix,
        new_prefix: second.json.prefix,
        ended_grace_of: [key.prefix],
      }),
    ]);
  });

  it('refuses bad graces, revoked and unknown keys, and auditors, leaving storage unchanged', async () => {
    const key = await create('rotate-refusals');
    const revoked = await create('rotate-revoked');
    await s.call('POST', `/gateway/keys/${revoked.id}/revoke`);
    const tables = () => [snapshot(s, 'gateway_keys'), snapshot(s, 'gateway_key_replaced_secrets')];
    const before = tables();
    for (const body of [{ grace_seconds: -1 }, { grace_seconds: 1.5 }, { grace_seconds: '60' }, { grace: 60 }]) {
      const res = await rotate(key.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await rotate(key.id, { grace_seconds: 31 * 86_400 })).status).toBe(400);
    expect((await rotate(revoked.id)).status).toBe(409);
    expect((await rotate('key_nope')).status).toBe(404);
    const denied = await s.call('POST', `/gateway/keys/${key.id}/rotate`, { role: 'auditor', body: {} });
    expect(denied.status).toBe(403);
    expect(tables()).toEqual(before);
    const entries = auditOf('gateway.key.rotate', key.id);
    expect(entries.filter((e) => e.outcome === 'success')).toEqual([]);
    expect(entries.filter((e) => e.outcome === 'denied')).toEqual([
      expect.objectContaining({ status: 403, actor_subject: 'aude-auditor' }),
    ]);
    expect((await gateway(key.secret)).status).toBe(200);
  });
});

describe('secrets', () => {
  it('neither the new nor the old secret reaches the database files, the audit trail or the logs', async () => {
    const key = await create('rotation-secret-check');
    await rotate(key.id, { grace_seconds: 60 });
    expect(secrets.length).toBeGreaterThan(8);
    expect(JSON.stringify(s.server.db.prepare('SELECT * FROM audit').all())).toContain(key.prefix); // the entry names the prefixes
    await watch.expectNowhere();
  });
});
