import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { amountOfNanos, costNanos, Spend as SpendSchema, Usage as UsageSchema } from '../../src/contract/index.js';
import { recordSpend } from '../../src/server/gateway/spend.js';
import { recordUsage } from '../../src/server/gateway/metering.js';
import { sumSpend } from '../../src/server/gateway/spend-summary.js';
import { segments as timeSegments } from '../../src/server/gateway/time-segments.js';

/**
 * Spend in money (issue 41 §4): the models' prices, each key's cost in usage, and the cost summaries
 * by model, workload and key, through the real server and its front door.
 */
const LLAMA = { input_per_million: 3, output_per_million: 15 };
let s: TestServer;
const BODY = JSON.stringify({ max_tokens: 100, messages: [{ role: 'user', content: 'x'.repeat(400) }] });
const tokens = { input_tokens: Math.ceil(Buffer.byteLength(BODY) / 4), output_tokens: 100 };
const perCall = costNanos(LLAMA, tokens);
const keys: Record<string, { id: string; secret: string }> = {};

beforeAll(async () => {
  // llama is priced, mistral (which summarize is routed to) is not
  s = await startTestServer({
    config: (root) => fixtureConfig(root, { pricing: { currency: 'EUR', models: { 'llama-3.1-8b': LLAMA } } }),
  });
  for (const name of ['chatty', 'summarizer', 'old']) {
    const r = await s.call('POST', '/gateway/keys', { body: { name } });
    keys[name] = r.json as { id: string; secret: string };
  }
  const call = (key: string, workload: string) =>
    s.call('POST', `/v1/gateway/${workload}`, { role: null, token: keys[key].secret, raw: BODY });
  for (const [key, workload] of [
    ['chatty', 'chat'],
    ['chatty', 'chat'],
    ['chatty', 'summarize'],
    ['summarizer', 'summarize'],
  ])
    expect((await call(key, workload)).status).toBe(200);
  // calls metered before costs were kept: usage without spend
  recordUsage(s.server.db, keys.old.id, Math.floor(Date.now() / 60_000), {
    requests: 5,
    input_tokens: 50,
    output_tokens: 50,
  });
});
afterAll(async () => {
  await s.close();
});

it('lists each model with its price and the currency; a model absent from the pricing is unpriced (null)', async () => {
  const r = await s.call('GET', '/models', { role: 'auditor' });
  expect(r.status).toBe(200);
  const by = Object.fromEntries((r.json.data as { id: string }[]).map((m) => [m.id, m]));
  expect(by['llama-3.1-8b']).toMatchObject({ price: LLAMA, currency: 'EUR' });
  expect(by['mistral-7b']).toMatchObject({ price: null, currency: 'EUR' });
});

it('usage carries each key’s cost in the currency, and its calls without a known cost', async () => {
  const r = await s.call('GET', '/gateway/usage?bucket=minute', { role: 'auditor' });
  expect(r.status).toBe(200);
  const usage = UsageSchema.parse(r.json);
  expect(usage.currency).toBe('EUR');
  const by = Object.fromEntries(usage.data.map((u) => [u.key_id, u]));
  expect(by[keys.chatty.id]).toMatchObject({ requests: 3, cost: amountOfNanos(2 * perCall), unpriced_requests: 1 });
  expect(by[keys.summarizer.id]).toMatchObject({ requests: 1, cost: 0, unpriced_requests: 1 });
  expect(by[keys.old.id]).toMatchObject({ requests: 5, cost: 0, unpriced_requests: 5 });
  const bucket = by[keys.chatty.id].buckets.find((b) => b.requests > 0)!;
  expect(bucket).toMatchObject({ cost: amountOfNanos(2 * perCall), unpriced_requests: 1 });
});

describe('GET /gateway/spend', () => {
  const spend = async (query: string) => {
    const r = await s.call('GET', `/gateway/spend?${query}`, { role: 'auditor' });
    expect(r.status, r.text).toBe(200);
    return SpendSchema.parse(r.json);
  };

  it('by model (the default), most costly first, named, with the unpriced calls apart', async () => {
    const r = await spend('');
    expect(r).toMatchObject({ currency: 'EUR', bucket: 'day', group_by: 'model', has_more: false });
    expect(r.data.map((g) => [g.group, g.name, g.requests, g.cost, g.unpriced_requests])).toEqual([
      ['llama-3.1-8b', 'Llama 3.1 8B Instruct', 2, amountOfNanos(2 * perCall), 0],
      ['mistral-7b', 'Mistral 7B Instruct', 2, 0, 2],
    ]);
    expect(r.data[0].buckets.reduce((n, b) => n + b.cost, 0)).toBeCloseTo(amountOfNanos(2 * perCall), 6);
  });

  it('by workload and by key, one key alone, paged by cursor', async () => {
    const byWorkload = await spend('group_by=workload&bucket=hour');
    expect(byWorkload.data.map((g) => [g.group, g.name, g.requests])).toEqual([
      ['chat', null, 2],
      ['summarize', null, 2],
    ]);
    const byKey = await spend('group_by=key');
    // the key metered before costs were kept has no spend: usage counts its calls as unpriced
    expect(byKey.data.map((g) => [g.name, g.requests, g.unpriced_requests])).toEqual([
      ['chatty', 3, 1],
      ['summarizer', 1, 1],
    ]);
    const oneKey = await spend(`group_by=model&key_id=${keys.summarizer.id}`);
    expect(oneKey.data.map((g) => g.group)).toEqual(['mistral-7b']);
    const first = await spend('group_by=key&limit=1');
    expect(first.data.map((g) => g.name)).toEqual(['chatty']);
    expect(first.has_more).toBe(true);
    const next = await spend(`group_by=key&limit=1&after=${first.next_cursor}`);
    expect(next.data.map((g) => g.name)).toEqual(['summarizer']);
    expect(next).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('refuses bad input with problem+json and leaves storage as it was', async () => {
    const before = s.server.db.prepare('SELECT COUNT(*) FROM usage_spend').pluck().get();
    const bad = [
      ['group_by=team', 400],
      ['bucket=minute&start_time=2026-01-01T00:00:00Z&end_time=2026-01-03T00:00:00Z', 400],
      ['after=bm90LWEtY3Vyc29y', 400],
      ['key_id=key_nope', 404],
    ] as const;
    for (const [query, status] of bad) {
      const r = await s.call('GET', `/gateway/spend?${query}`, { role: 'auditor' });
      expect(r.status, query).toBe(status);
      expect(String(r.headers['content-type'])).toMatch(/problem\+json/);
    }
    expect(s.server.db.prepare('SELECT COUNT(*) FROM usage_spend').pluck().get()).toBe(before);
  });

  it('counts each bucket whole: a range inside days reads the whole days it overlaps, and says so', async () => {
    const db = s.server.db;
    const day0 = Math.floor(Date.UTC(2026, 9, 1) / 60_000);
    const key = keys.old.id;
    // one call every 7 minutes over three days, each costing its minute number in nano-units
    for (let m = day0; m < day0 + 3 * 1440; m += 7)
      recordSpend(db, key, m, {
        model_id: 'llama-3.1-8b',
        workload: 'chat',
        requests: 1,
        input_tokens: 1,
        output_tokens: 1,
        cost_nanos: m - day0,
      });
    const from = day0 + 13 * 60 + 17;
    const to = day0 + 2 * 1440 + 9 * 60 + 41;
    const expected = db
      .prepare(
        "SELECT SUM(cost_nanos) AS cost, SUM(requests) AS n FROM usage_spend WHERE grain = 'minute' AND key_id = ? AND start_minute >= ? AND start_minute < ?",
      )
      .get(key, day0, day0 + 3 * 1440) as { cost: number; n: number };
    const iso = (m: number) => new Date(m * 60_000).toISOString().replace('.000Z', 'Z');
    const r = await spend(`group_by=key&key_id=${key}&start_time=${iso(from)}&end_time=${iso(to)}`);
    expect([r.start_time, r.end_time]).toEqual([iso(day0), iso(day0 + 3 * 1440)]);
    expect(r.data).toHaveLength(1);
    expect(r.data[0].requests).toBe(expected.n);
    expect(r.data[0].cost).toBe(amountOfNanos(expected.cost));
    expect(r.data[0].buckets.map((b) => b.start_time)).toEqual([iso(day0), iso(day0 + 1440), iso(day0 + 2 * 1440)]);
    expect(r.data[0].buckets.reduce((n, b) => n + b.requests, 0)).toBe(expected.n);
  });
});

it('sums minutes exactly from whole days, whole hours and single minutes (usage reads spend this way)', () => {
  const db = s.server.db;
  const day0 = Math.floor(Date.UTC(2026, 8, 1) / 60_000);
  for (let m = day0; m < day0 + 3 * 1440; m += 11)
    recordSpend(db, 'key_exact', m, {
      model_id: 'm',
      workload: 'chat',
      requests: 1,
      input_tokens: 1,
      output_tokens: 1,
      cost_nanos: m - day0,
    });
  const from = day0 + 13 * 60 + 17;
  const to = day0 + 2 * 1440 + 9 * 60 + 41;
  const segments = timeSegments(from, to, 'day', false);
  expect(new Set(segments.map((g) => g.grain))).toEqual(new Set(['day', 'hour', 'minute']));
  const expected = db
    .prepare(
      "SELECT SUM(cost_nanos) AS cost_nanos, SUM(requests) AS requests FROM usage_spend WHERE grain = 'minute' AND key_id = ? AND start_minute >= ? AND start_minute < ?",
    )
    .get('key_exact', from, to);
  const [sum] = sumSpend(db, segments, 'key_id', { keyId: 'key_exact' });
  expect({ cost_nanos: sum.cost_nanos, requests: sum.requests }).toEqual(expected);
});
