import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/fixtures.js';
import { openDatabase, type Db } from '../../src/server/db/open.js';
import { issueToken, revokeToken } from '../../src/server/tokens.js';
import { MAX_SOURCES_PER_MINUTE, RefusalLog, sourceOf } from '../../src/server/http/refusals.js';
import { iso } from '../../src/server/ids.js';
import { entryHash } from '../../src/audit-chain/canonical.js';

/**
 * Issue 36 §12: a request with a missing, malformed, unknown, expired or revoked token leaves a
 * trace, one `auth.refused` entry per source and minute with a count, whatever the flood; no part
 * of a token is stored. The server counts by a clock this test sets, so a minute ends when the test
 * says so.
 */
const MINUTE = 60_000;
const minuteOf = (ms: number) => ms - (ms % MINUTE);

type Row = Record<string, any>;
const refusedRows = (db: Db): Row[] =>
  (db.prepare("SELECT * FROM audit WHERE action = 'auth.refused' ORDER BY seq").all() as Row[]).map((r) => ({
    ...r,
    details: JSON.parse(r.details),
  }));

describe('requests refused as unauthenticated (401)', () => {
  let s: TestServer;
  let clock: number;
  const logLines: string[] = [];
  /** every credential sent, to look for in the database and the log afterwards */
  const sent: string[] = [];
  let unknownTokens: string[];
  let credentials: Record<'missing' | 'malformed' | 'unknown' | 'expired' | 'revoked', (i: number) => string | null>;
  let closed = false;

  beforeAll(async () => {
    // the end of a minute is near: the server's timer for it is due within a second of real time
    clock = minuteOf(Date.now()) + MINUTE - 600;
    s = await startTestServer({
      now: () => clock,
      logger: pino({ level: 'trace' }, { write: (l: string) => void logLines.push(l) }),
    });
    const expired = issueToken(s.server.db, 'it_admin', 'expired-one', -MINUTE).token;
    const revoked = issueToken(s.server.db, 'it_admin', 'revoked-one').token;
    expect(revokeToken(s.server.db, 'revoked-one')).toBe(1);
    unknownTokens = Array.from({ length: 100 }, () => `aat_${randomBytes(32).toString('base64url')}`);
    credentials = {
      missing: () => null,
      malformed: (i) =>
        i % 2 ? `Basic ${Buffer.from(`admin:secret-${i}`).toString('base64')}` : `Bearer two words-${i}`,
      unknown: (i) => `Bearer ${unknownTokens[i]}`,
      expired: () => `Bearer ${expired}`,
      revoked: () => `Bearer ${revoked}`,
    };
    sent.push(expired, revoked, ...unknownTokens);
  });
  afterAll(async () => {
    if (!closed) await s?.close();
  });

  /** One refused request with `authorization`, to one of the admin API's ways in. */
  async function refused(authorization: string | null, i: number): Promise<void> {
    const headers: Record<string, string> = authorization === null ? {} : { authorization };
    const [method, path, body] = [
      ['GET', '/session'],
      ['GET', '/audit?limit=5'],
      ['POST', '/gateway/keys', { name: `flood-${i}` }],
      ['PUT', '/settings', {}],
      // the router cannot read these paths (an id over 100 characters): answered in app.ts, not by a route
      ['POST', `/gateway/keys/${'k'.repeat(101)}/revoke`],
    ][i % 5] as [string, string, unknown?];
    const res = await s.call(method, path, { role: null, headers, body });
    expect(res.status, `${method} ${path}`).toBe(401);
  }

  it('a flood of 500 from one address is one entry for its minute, with a count and the reasons, written when the minute ends', async () => {
    const reasons = Object.keys(credentials) as (keyof typeof credentials)[];
    const seqBefore = s.server.db.prepare('SELECT max(seq) FROM audit').pluck().get() as number | null;
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => {
          const i = batch * 50 + j;
          return refused(credentials[reasons[i % 5]](Math.floor(i / 5)), i);
        }),
      );
    }
    // not refusals of the admin API: the gateway's own keys, a route that needs no token, an unknown path
    expect((await s.call('POST', '/v1/gateway/chat', { role: null, token: 'agk_nope', body: {} })).status).toBe(401);
    expect((await s.call('GET', '/openapi.json', { role: null })).status).toBe(200);
    expect((await s.call('GET', '/no-such-thing', { role: null })).status).toBe(404);

    // the minute has not ended: nothing is written yet, however many were refused
    expect(refusedRows(s.server.db)).toEqual([]);
    const first = clock;
    clock = minuteOf(first) + MINUTE + 1_000;
    await vi.waitFor(() => expect(refusedRows(s.server.db)).toHaveLength(1), { timeout: 10_000, interval: 50 });

    const [row] = refusedRows(s.server.db);
    expect(row).toMatchObject({
      actor_subject: 'anonymous',
      actor_role: null,
      action: 'auth.refused',
      target_type: 'session',
      target_id: null,
      target_name: null,
      outcome: 'denied',
      status: 401,
      source_ip: '127.0.0.1',
      details: {
        count: 500,
        first_at: iso(first),
        last_at: iso(first),
        reasons: { missing: 100, malformed: 100, unknown: 100, expired: 100, revoked: 100 },
      },
    });
    // no other entry came of them: the refused mutation attempts are not audited one by one
    const since = s.server.db
      .prepare('SELECT action FROM audit WHERE seq > ?')
      .pluck()
      .all(seqBefore ?? 0);
    expect(since).toEqual(['auth.refused']);

    // served like any entry, in the chain
    const listed = await s.call('GET', '/audit?action=auth.refused', { role: 'auditor' });
    expect(listed.json.data).toHaveLength(1);
    const served = listed.json.data[0];
    expect(served).toMatchObject({
      actor: { subject: 'anonymous', role: null },
      target: { type: 'session', id: null, name: null },
      details: { count: 500 },
    });
    const { hash, ...rest } = served;
    expect(entryHash(rest)).toBe(hash);
  });

  it('the next request after a minute ended writes it at once; the minute under way is written at shutdown', async () => {
    for (let i = 0; i < 3; i++) await refused(credentials.unknown(i), i);
    const second = clock;
    clock = minuteOf(second) + MINUTE + 2_000;
    await refused(null, 0);
    // written as the request of the next minute was counted, before its answer
    expect(refusedRows(s.server.db).map((r) => r.details)).toMatchObject([
      { count: 500 },
      { count: 3, reasons: { unknown: 3 }, first_at: iso(second) },
    ]);
    await refused(credentials.malformed(1), 1);

    const dataDir = s.dataDir;
    closed = true;
    await s.close();
    const db = openDatabase(dataDir);
    try {
      expect(refusedRows(db).map((r) => r.details)).toMatchObject([
        { count: 500 },
        { count: 3 },
        { count: 2, reasons: { missing: 1, malformed: 1 } },
      ]);
    } finally {
      db.close();
    }
  });

  it('stores no part of any token, nor its hash, and logs none', () => {
    const files = readdirSync(s.dataDir).filter((f) => !f.endsWith('.lock'));
    const bytes = Buffer.concat(files.map((f) => readFileSync(join(s.dataDir, f))));
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const secrets = sent.map((t) => t.slice('aat_'.length));
    for (const t of [...sent, ...secrets]) expect(bytes.includes(t), t).toBe(false);
    // an unknown token was never hashed into storage (an issued one's hash is its row in api_tokens)
    for (const t of unknownTokens) expect(bytes.includes(sha(t)), t).toBe(false);
    const log = logLines.join('\n');
    for (const t of [...sent, ...secrets, 'secret-1', 'two words']) expect(log.includes(t), t).toBe(false);
  });
});

describe('the count of refusals, over many sources', () => {
  it('counts an IPv6 source by its /64, and an IPv4-mapped one as IPv4', () => {
    expect(sourceOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceOf('::1')).toBe('0:0:0:0::/64');
    expect(sourceOf('::ffff:10.0.0.5')).toBe('10.0.0.5');
    expect(sourceOf('10.0.0.5')).toBe('10.0.0.5');
    expect(sourceOf(null)).toBeNull();
  });

  const silent = pino({ level: 'silent' });

  it(`keeps ${MAX_SOURCES_PER_MINUTE} sources apart in a minute and counts the rest together, with how many they were`, () => {
    const db = openDatabase(join(tempDir('aa-refused'), 'data'));
    try {
      let now = Date.parse('2026-11-26T10:00:05Z');
      const log = new RefusalLog(db, silent, () => now);
      const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      for (let i = 0; i < MAX_SOURCES_PER_MINUTE; i++) log.note(ip(i), 'unknown');
      now += 1000;
      // the sources already counted keep their own entry; 250 new ones share one, some of them twice
      for (let i = 0; i < 300; i++) log.note(ip(MAX_SOURCES_PER_MINUTE + (i % 250)), i % 3 ? 'missing' : 'expired');
      log.note(ip(7), 'revoked');
      expect(refusedRows(db)).toEqual([]);
      now = Date.parse('2026-11-26T10:01:00Z');
      log.flush();
      log.close();
      const rows = refusedRows(db);
      expect(rows).toHaveLength(MAX_SOURCES_PER_MINUTE + 1);
      expect(new Set(rows.map((r) => r.source_ip)).size).toBe(MAX_SOURCES_PER_MINUTE + 1);
      expect(rows.find((r) => r.source_ip === ip(7))!.details).toEqual({
        count: 2,
        first_at: '2026-11-26T10:00:05Z',
        last_at: '2026-11-26T10:00:06Z',
        reasons: { unknown: 1, revoked: 1 },
      });
      expect(rows.find((r) => r.source_ip === null)!.details).toEqual({
        count: 300,
        first_at: '2026-11-26T10:00:06Z',
        last_at: '2026-11-26T10:00:06Z',
        reasons: { missing: 200, expired: 100 },
        sources: 250,
      });
      expect(rows.every((r) => r.at === '2026-11-26T10:01:00Z')).toBe(true);
    } finally {
      db.close();
    }
  });

  it('writes a minute at once when the clock is set back before it, rather than holding it until then', () => {
    const db = openDatabase(join(tempDir('aa-refused'), 'data'));
    try {
      let now = Date.parse('2026-11-26T10:05:30Z');
      const log = new RefusalLog(db, silent, () => now);
      log.note('192.0.2.1', 'unknown');
      now = Date.parse('2026-11-26T09:58:00Z');
      log.flush();
      expect(refusedRows(db).map((r) => r.details.first_at)).toEqual(['2026-11-26T10:05:30Z']);
      log.note('192.0.2.1', 'unknown');
      log.close();
      log.note('192.0.2.1', 'unknown');
      expect(refusedRows(db).map((r) => r.details.first_at)).toEqual(['2026-11-26T10:05:30Z', '2026-11-26T09:58:00Z']);
    } finally {
      db.close();
    }
  });

  it('a full disk loses a minute to the log, never the server; the next minute is written', () => {
    const db = openDatabase(join(tempDir('aa-refused'), 'data'));
    const lines: string[] = [];
    let now = Date.parse('2026-11-26T10:00:05Z');
    const log = new RefusalLog(db, pino({ level: 'error' }, { write: (l: string) => void lines.push(l) }), () => now);
    try {
      // a real SQLITE_FULL: the database may not grow past its size, and a refused request a
      // minute fills it (each one writes the minute before)
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
      let minutes = 0;
      for (; lines.length === 0 && minutes < 10_000; minutes++) {
        expect(() => log.note('192.0.2.1', 'unknown')).not.toThrow();
        now += MINUTE;
      }
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0])).toMatchObject({
        err: { code: 'SQLITE_FULL' },
        refused: [{ source_ip: '192.0.2.1', count: 1, reasons: { unknown: 1 } }],
      });
      const written = refusedRows(db).length;
      expect(written).toBe(minutes - 2);

      db.pragma('max_page_count = 1073741823');
      log.note('192.0.2.1', 'missing');
      log.close();
      expect(
        refusedRows(db)
          .slice(written)
          .map((r) => r.details),
      ).toMatchObject([
        { count: 1, reasons: { unknown: 1 } },
        { count: 1, reasons: { missing: 1 } },
      ]);
    } finally {
      db.close();
    }
  });
});
