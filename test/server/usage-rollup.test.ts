import { describe, expect, it } from 'vitest';
import Database from '../../src/server/db/sqlite-driver.js';
import { migrate } from '../../src/server/db/open.js';
import { recordUsage } from '../../src/server/gateway/metering.js';
import { queryUsage } from '../../src/server/gateway/usage.js';
import { rebuildRollup } from '../../src/server/gateway/usage-rollup.js';
import { segments } from '../../src/server/gateway/time-segments.js';
import { createRng } from '../../src/server/demo/prng.js';
import { REJECTION_CAUSES, type UsageBucketSize } from '../../src/contract/index.js';

/**
 * Usage by the hour and the day (migration 15): a range reads whole days and hours from their own
 * rows and only its ragged ends from the minutes, and answers exactly what the minutes alone say.
 */
const MINUTE = 60_000;
const T0 = Date.UTC(2026, 2, 1, 0, 0) / MINUTE; // epoch minute, a UTC midnight
const SPAN = 3 * 1440 + 200; // three days and a bit

function seeded() {
  const db = new Database(':memory:');
  migrate(db);
  const rng = createRng(41);
  for (let i = 0; i < 1500; i++) {
    const key = `key_${rng.int(0, 3)}`;
    const minute = T0 + rng.int(0, SPAN - 1);
    const cause = REJECTION_CAUSES[rng.int(0, REJECTION_CAUSES.length - 1)];
    recordUsage(db, key, minute, {
      requests: rng.int(0, 5),
      input_tokens: rng.int(0, 900),
      output_tokens: rng.int(0, 300),
      ...(rng.chance(0.3) ? { rejected_by: { [cause]: rng.int(1, 3) } } : {}),
    });
  }
  return db;
}

/** What the minute rows alone say of [from, to) by `bucket`, as the usage answer's data. */
function fromMinutes(db: InstanceType<typeof Database>, from: number, to: number, bucket: UsageBucketSize) {
  const size = { minute: 1, hour: 60, day: 1440 }[bucket];
  const rows = db.prepare('SELECT * FROM usage_minutes WHERE minute >= ? AND minute < ?').all(from, to) as Record<
    string,
    number & string
  >[];
  const keys = new Map<string, { requests: number; rejected: number; tokens: number; buckets: Map<number, number> }>();
  for (const r of rows) {
    const k = keys.get(r.key_id) ?? { requests: 0, rejected: 0, tokens: 0, buckets: new Map() };
    k.requests += r.requests;
    k.rejected += r.rejected;
    k.tokens += r.input_tokens + r.output_tokens;
    const b = Math.floor(r.minute / size) * size * MINUTE;
    k.buckets.set(b, (k.buckets.get(b) ?? 0) + r.requests);
    keys.set(r.key_id, k);
  }
  return keys;
}

describe('usage by hour and day', () => {
  it('answers every range and bucket as the minute rows alone do, ragged ends and open ends alike', () => {
    const db = seeded();
    const rng = createRng(7);
    const nowMinute = T0 + SPAN + 5;
    let compared = 0;
    for (let i = 0; i < 120; i++) {
      const bucket = (['minute', 'hour', 'day'] as const)[rng.int(0, 2)];
      const longest = bucket === 'minute' ? 1440 : SPAN + 30;
      const from = T0 - 20 + rng.int(0, SPAN);
      const to = Math.min(from + rng.int(1, longest), nowMinute + 1 + rng.int(0, 90));
      if (to <= from) continue;
      const answer = queryUsage(
        db,
        { bucket, start_time: new Date(from * MINUTE).toISOString(), end_time: new Date(to * MINUTE).toISOString() },
        nowMinute * MINUTE + 1234,
        null,
      );
      const expected = fromMinutes(db, from, to, bucket);
      expect(answer.data.map((u) => u.key_id).sort()).toEqual([...expected.keys()].sort());
      for (const u of answer.data) {
        const e = expected.get(u.key_id)!;
        expect([u.requests, u.rejected, u.input_tokens + u.output_tokens]).toEqual([e.requests, e.rejected, e.tokens]);
        expect(Object.values(u.rejected_by).reduce((a, b) => a + b, 0)).toBe(u.rejected);
        const buckets = new Map(
          u.buckets.filter((b) => b.requests > 0).map((b) => [Date.parse(b.start_time), b.requests]),
        );
        expect(buckets).toEqual(new Map([...e.buckets].filter(([, n]) => n > 0)));
      }
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('reads whole days and hours from their rows and only the ends from minutes', () => {
    // 23:10 to 02:30 two days later, by day: minutes to midnight, a whole day, hours, then minutes
    const from = T0 + 1390;
    const to = T0 + 2 * 1440 + 150;
    expect(segments(from, to, 'day', false)).toEqual([
      { grain: 'minute', from, to: T0 + 1440 },
      { grain: 'day', from: T0 + 1440, to: T0 + 2880 },
      { grain: 'hour', from: T0 + 2880, to: T0 + 2880 + 120 },
      { grain: 'minute', from: T0 + 2880 + 120, to },
    ]);
    // the same range ending after the current minute: its last day is read whole
    expect(segments(from, to, 'day', true)).toEqual([
      { grain: 'minute', from, to: T0 + 1440 },
      { grain: 'day', from: T0 + 1440, to: T0 + 3 * 1440 },
    ]);
    // by hour, never a day; by minute, only minutes
    expect(segments(from, to, 'hour', false).map((s) => s.grain)).toEqual(['minute', 'hour', 'minute']);
    expect(segments(from, to, 'minute', true)).toEqual([{ grain: 'minute', from, to }]);
  });

  it('the upgrade builds the same hours and days the writes keep', () => {
    const db = seeded();
    const kept = db.prepare('SELECT * FROM usage_rollup ORDER BY grain, start_minute, key_id').all();
    expect(kept.length).toBeGreaterThan(100);
    rebuildRollup(db);
    expect(db.prepare('SELECT * FROM usage_rollup ORDER BY grain, start_minute, key_id').all()).toEqual(kept);
  });
});
