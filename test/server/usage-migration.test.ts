import { describe, expect, it } from 'vitest';
import Database from '../../src/server/db/sqlite-driver.js';
import { migrate } from '../../src/server/db/open.js';
import { migrations } from '../../src/server/db/migrations.js';
import { queryUsage } from '../../src/server/gateway/usage.js';
import { insertGatewayKeys } from '../helpers/seed-gateway-keys.js';

/** A database as version 3 left it: rejections counted, without their cause. */
function version3Database() {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of migrations.filter((x) => x.version <= 3)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-01-01T00:00:00Z');
  }
  const key = (name: string, secret_hash: string, rpm: number | null, tpm: number | null, tpd: number | null) => ({
    id: `key_${name}`,
    name,
    prefix: 'agk_x',
    secret_hash,
    created_at: '2026-01-01T00:00:00Z',
    requests_per_minute: rpm,
    tokens_per_minute: tpm,
    tokens_per_day: tpd,
  });
  insertGatewayKeys(db, [
    key('rpm', 'h1', 10, null, null),
    key('tpm', 'h2', null, 1000, 50_000),
    key('tpd', 'h3', null, null, 50_000),
    key('all', 'h4', 10, 1000, 50_000),
    key('none', 'h5', null, null, null),
  ]);
  const usage = db.prepare(
    'INSERT INTO usage_minutes (key_id, minute, requests, rejected, input_tokens, output_tokens) VALUES (?, ?, ?, ?, 0, 0)',
  );
  const minute = Date.parse('2026-03-01T10:00:00Z') / 60_000;
  for (const id of ['key_rpm', 'key_tpm', 'key_tpd', 'key_all', 'key_none']) {
    usage.run(id, minute, 5, 3);
    usage.run(id, minute + 1, 2, 0);
  }
  // a key deleted by hand: its rows keep their rejections
  usage.run('key_gone', minute, 1, 4);
  return db;
}

describe('migration 4: rejections by cause', () => {
  it("gives each old row's rejections to the first limit the key's quota sets, keeping the totals", () => {
    const db = version3Database();
    migrate(db);
    const usage = queryUsage(
      db,
      { start_time: '2026-03-01T10:00:00Z', end_time: '2026-03-01T11:00:00Z', bucket: 'hour' },
      Date.now(),
      null,
    );
    const by = Object.fromEntries(usage.data.map((u) => [u.key_id, u]));
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
    expect(by.key_rpm).toMatchObject({ requests: 7, rejected: 3, rejected_by: { ...none, requests_per_minute: 3 } });
    expect(by.key_tpm.rejected_by).toEqual({ ...none, tokens_per_minute: 3 });
    expect(by.key_tpd.rejected_by).toEqual({ ...none, tokens_per_day: 3 });
    expect(by.key_all.rejected_by).toEqual({ ...none, requests_per_minute: 3 });
    expect(by.key_none.rejected_by).toEqual({ ...none, requests_per_minute: 3 });
    expect(by.key_gone).toMatchObject({ rejected: 4, rejected_by: { ...none, requests_per_minute: 4 } });
    // no key of its id is stored: its usage says so rather than a name
    expect(by.key_gone.key).toBeNull();
    // no row left whose causes do not add up to its total
    expect(
      db
        .prepare(
          'SELECT count(*) FROM usage_minutes WHERE rejected <> rejected_rpm + rejected_tpm + rejected_tpd + rejected_revoked + rejected_workload',
        )
        .pluck()
        .get(),
    ).toBe(0);
    db.close();
  });
});
