import type { FastifyRequest } from 'fastify';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type CallResult, type TestServer } from '../helpers/server.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { ServerConfig } from '../../src/server/config.js';
import { openDatabase, type Db } from '../../src/server/db/open.js';
import { Buckets, MAX_LIMITED_PER_MINUTE, WriteLimiter } from '../../src/server/http/rate-limit.js';
import { entryHash } from '../../src/audit-chain/canonical.js';

/**
 * Issue 37 §5: an auditor's 3,000 empty exports in 3 s wrote 3,000 audit entries and signed 3,000
 * checkpoints, and denied attempts were audited without any limit. Every request that writes the audit
 * trail is limited per caller (the production numbers: 60 at once, then 1 a second); the 429s are
 * counted in one rate.limited entry per caller and minute; reads are never limited. The server's clock
 * is this test's, so the buckets refill and the minutes end when the test says so.
 */
const MINUTE = 60_000;
const minuteOf = (ms: number) => ms - (ms % MINUTE);
const LIMIT = ServerConfig.parse({}).rate_limit;

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** A server with the production limit, and its clock near the end of a minute (its timer fires soon after). */
async function limitedServer() {
  const clock = { now: minuteOf(Date.now()) + MINUTE - 600 };
  const s = await startTestServer({
    now: () => clock.now,
    config: (root) => fixtureConfig(root, { rate_limit: LIMIT }),
  });
  servers.push(s);
  return { s, clock };
}

type Row = Record<string, any>;
const entriesAfter = (db: Db, seq: number): Row[] =>
  (db.prepare('SELECT * FROM audit WHERE seq > ? ORDER BY seq').all(seq) as Row[]).map((r) => ({
    ...r,
    details: JSON.parse(r.details),
  }));
const headSeq = (s: TestServer) => (s.server.db.prepare('SELECT max(seq) FROM audit').pluck().get() as number) ?? 0;
const checkpointCount = (s: TestServer) =>
  s.server.db.prepare('SELECT count(*) FROM audit_checkpoints').pluck().get() as number;
const limitedRows = (db: Db) => entriesAfter(db, 0).filter((r) => r.action === 'rate.limited');

/** `n` requests, `at once` at a time. */
async function burst(n: number, send: (i: number) => Promise<CallResult>, atOnce = 25): Promise<CallResult[]> {
  const out: CallResult[] = [];
  for (let i = 0; i < n; i += atOnce)
    out.push(...(await Promise.all(Array.from({ length: Math.min(atOnce, n - i) }, (_, j) => send(i + j)))));
  return out;
}
const statuses = (rs: CallResult[]) =>
  rs.reduce<Record<number, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});

function expectThrottled(r: CallResult): number {
  expect(r.status).toBe(429);
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(r.json).toMatchObject({ status: 429, code: 'SVC-ADMIN-429' });
  const wait = r.headers['retry-after'];
  expect(String(wait)).toMatch(/^\d+$/);
  expect(r.json.detail).toContain(`retry after ${String(wait)} s`);
  return Number(wait);
}

describe('requests that write the audit trail, per caller', () => {
  it("an auditor's 300 exports in a burst: 60 served, the rest 429 with Retry-After; 60 entries and at most one checkpoint", async () => {
    const { s, clock } = await limitedServer();
    expect((await s.call('POST', '/gateway/keys', { body: { name: 'before' } })).status).toBe(201);
    const seq = headSeq(s);
    const signed = checkpointCount(s);
    const started = clock.now;

    const answers = await burst(300, (i) =>
      s.call('GET', `/audit/export?format=${i % 2 ? 'csv' : 'jsonl'}`, { role: 'auditor' }),
    );
    expect(statuses(answers)).toEqual({ 200: LIMIT.burst, 429: 300 - LIMIT.burst });
    const waits = answers.filter((r) => r.status === 429).map(expectThrottled);
    // each 429 takes a token too, down to a debt of a whole burst: the wait grows, and is bounded
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...waits)).toBe(Math.ceil((LIMIT.burst + 1) / LIMIT.per_second));

    // one entry per export served, none per 429; one checkpoint at most (the first export's: the key was created)
    const written = entriesAfter(s.server.db, seq);
    expect(written.map((r) => r.action)).toEqual(Array(LIMIT.burst).fill('audit.export'));
    expect(checkpointCount(s) - signed).toBeLessThanOrEqual(1);

    // the 429s are one rate.limited entry for the minute, written once it has ended
    expect(limitedRows(s.server.db)).toEqual([]);
    clock.now = minuteOf(started) + MINUTE + 1_000;
    await vi.waitFor(() => expect(limitedRows(s.server.db)).toHaveLength(1), { timeout: 10_000, interval: 50 });
    expect(limitedRows(s.server.db)[0]).toMatchObject({
      actor_subject: 'aude-auditor',
      actor_role: 'auditor',
      action: 'rate.limited',
      target_type: 'session',
      outcome: 'denied',
      status: 429,
      source_ip: '127.0.0.1',
      details: { count: 300 - LIMIT.burst, actions: { 'audit.export': 300 - LIMIT.burst } },
    });
    const listed = await s.call('GET', '/audit?action=rate.limited', { role: 'auditor' });
    const { hash, ...rest } = listed.json.data[0];
    expect(entryHash(rest)).toBe(hash);
  });

  it('a flood of denied attempts (403) is bounded the same way, whichever way in it takes', async () => {
    const { s, clock } = await limitedServer();
    const seq = headSeq(s);
    const answers = await burst(300, (i) =>
      s.call('POST', '/gateway/keys', { role: 'auditor', body: { name: `flood-${i}` } }),
    );
    expect(statuses(answers)).toEqual({ 403: LIMIT.burst, 429: 300 - LIMIT.burst });
    // and so are its other ways in: a settings write (405, audited) and a path the router cannot read (audited)
    expectThrottled(await s.call('PUT', '/settings', { role: 'auditor', body: {} }));
    expectThrottled(await s.call('POST', `/gateway/keys/${'k'.repeat(101)}/revoke`, { role: 'auditor' }));
    expectThrottled(await s.call('GET', '/agent/journal/export?format=csv', { role: 'auditor' }));
    expectThrottled(
      await s.call('POST', '/audit/seal', {
        role: 'auditor',
        body: { sha256: 'a'.repeat(64), purpose: 'evidence-pack' },
      }),
    );

    const written = entriesAfter(s.server.db, seq);
    expect(written).toHaveLength(LIMIT.burst);
    expect(written.every((r) => r.action === 'gateway.key.create' && r.outcome === 'denied')).toBe(true);
    // nothing was created
    expect((await s.call('GET', '/gateway/keys?limit=500')).json.data).toEqual([]);

    clock.now += MINUTE;
    await vi.waitFor(() => expect(limitedRows(s.server.db)).toHaveLength(1), { timeout: 10_000, interval: 50 });
    expect(limitedRows(s.server.db)[0].details).toMatchObject({
      count: 300 - LIMIT.burst + 4,
      actions: {
        'gateway.key.create': 300 - LIMIT.burst,
        'settings.update': 1,
        'gateway.key.revoke': 1,
        'journal.export': 1,
        'audit.seal': 1,
      },
    });
  });

  it('a change after Retry-After passes; one that comes back sooner is refused again, and told how long', async () => {
    const { s, clock } = await limitedServer();
    const toggle = (i: number) =>
      s.call('PUT', '/channels', { body: { channels: [{ id: 'chan_web', enabled: i % 2 === 0 }] } });
    const served = await burst(LIMIT.burst, toggle);
    expect(statuses(served)).toEqual({ 200: LIMIT.burst });
    expect(expectThrottled(await toggle(0))).toBe(Math.ceil(2 / LIMIT.per_second));
    // a client that ignores Retry-After stays refused, its wait bounded
    let wait = 0;
    for (const r of await burst(100, toggle)) wait = expectThrottled(r);
    expect(wait).toBe(Math.ceil((LIMIT.burst + 1) / LIMIT.per_second));

    clock.now += (wait - 1) * 1000;
    const early = expectThrottled(await toggle(1));
    clock.now += early * 1000;
    const after = await toggle(1);
    expect(after.status).toBe(200);
    const mine = await s.call('GET', `/audit?request_id=${String(after.headers['x-request-id'])}`);
    expect(mine.json.data).toMatchObject([{ action: 'channel.update', outcome: 'success' }]);
    // the callers' buckets are their own: another caller was never limited
    expect((await s.call('PUT', '/routing/chat', { role: 'app_owner', body: { model_id: null } })).status).toBe(200);
  });

  it("never limits reads: while a caller's writes get 429, 200 of the dashboard's reads in a burst pass", async () => {
    const { s } = await limitedServer();
    await burst(LIMIT.burst, () => s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' }));
    expectThrottled(await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' }));
    const reads = [
      ['GET', '/session'],
      ['GET', '/connectors'],
      ['GET', '/jobs'],
      ['GET', '/channels'],
      ['GET', '/gateway/keys'],
      ['GET', '/gateway/usage'],
      ['GET', '/models'],
      ['GET', '/routing'],
      ['GET', '/audit?limit=50'],
      ['GET', '/audit/summary?group_by=outcome'],
      ['GET', '/audit/checkpoints?limit=1'],
      ['GET', '/agent/journal'],
      ['GET', '/agent/budgets'],
      ['GET', '/agent/budgets/usage'],
      ['GET', '/deployment'],
      ['GET', '/settings'],
      ['HEAD', '/audit/export?format=jsonl'],
    ] as const;
    const answers = await burst(200, (i) =>
      s.call(reads[i % reads.length][0], reads[i % reads.length][1], { role: 'auditor' }),
    );
    expect(statuses(answers)).toEqual({ 200: 200 });
    expectThrottled(await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' }));
  });
});

describe('the limiter, alone', () => {
  const silent = pino({ level: 'silent' });

  it('keeps a bounded number of callers, and drops those whose bucket is full again', () => {
    let now = 0;
    const b = new Buckets(3, 1, () => now, 100);
    for (let i = 0; i < 1000; i++) expect(b.take(`caller-${i}`)).toBe(0);
    expect(b.size).toBe(100);
    for (let i = 0; i < 3; i++) b.take('busy');
    expect(b.take('busy')).toBe(2);
    now += 3_000;
    expect(b.take('busy')).toBe(0);
    // every other bucket is full again by now: dropped as the busy caller is seen
    expect(b.size).toBe(1);
  });

  it(`writes one rate.limited entry for each of ${MAX_LIMITED_PER_MINUTE} callers a minute, and one for the rest together`, async () => {
    const db = openDatabase(join(tempDir('aa-limited'), 'data'));
    try {
      let now = Date.parse('2026-11-26T10:00:05Z');
      const authenticate = async (h: string | undefined) =>
        ({ subject: String(h), role: 'auditor', kind: 'token', expires_at: null }) as const;
      const limiter = new WriteLimiter(db, silent, { burst: 1, per_second: 0.01 }, authenticate, () => now);
      const req = (who: string) => ({ headers: { authorization: who }, ip: '10.0.0.9' }) as unknown as FastifyRequest;
      const refused: number[] = [];
      for (let i = 0; i < 250; i++)
        for (let j = 0; j < 2; j++)
          await limiter.admit(req(`caller-${i}`), 'audit.export').catch((err: { status: number }) => {
            refused.push(err.status);
          });
      expect(refused).toEqual(Array(250).fill(429));
      now = Date.parse('2026-11-26T10:01:00Z');
      limiter.close();
      const rows = limitedRows(db);
      expect(rows).toHaveLength(MAX_LIMITED_PER_MINUTE + 1);
      expect(rows.find((r) => r.actor_subject === 'caller-7')!.details).toEqual({
        count: 1,
        first_at: '2026-11-26T10:00:05Z',
        last_at: '2026-11-26T10:00:05Z',
        actions: { 'audit.export': 1 },
      });
      expect(rows.find((r) => r.actor_subject === 'several')).toMatchObject({
        actor_role: null,
        source_ip: null,
        details: { count: 150, callers: 150, actions: { 'audit.export': 150 } },
      });
    } finally {
      db.close();
    }
  });
});
