import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { amountOfNanos, costNanos } from '../../src/contract/index.js';

/**
 * Budgets set through PUT /gateway/keys/{id}/budget (issue 41 §5): the key answers its budget and
 * what it spent; the refusal's Retry-After is the end of the UTC day or month whose budget refused;
 * a month budget holds across days; clearing lets calls through again; each change is audited with
 * from and to; bad input and a revoked key change nothing. The race of 200 calls is its own file
 * (gateway-budget-race.test.ts); a server without pricing answers 409 (openapi-errors.test.ts).
 */
const PRICE = { input_per_million: 3, output_per_million: 15 };
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({
    config: (root) => fixtureConfig(root, { pricing: { currency: 'EUR', models: { 'llama-3.1-8b': PRICE } } }),
  });
});
afterAll(async () => {
  await s.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const BODY = JSON.stringify({ max_tokens: 1000, messages: [{ role: 'user', content: 'x'.repeat(400) }] });
const PER_CALL = amountOfNanos(
  costNanos(PRICE, { input_tokens: Math.ceil(Buffer.byteLength(BODY) / 4), output_tokens: 1000 }),
);
const chat = (secret: string) => s.call('POST', '/v1/gateway/chat', { role: null, token: secret, raw: BODY });

let named = 0;
async function newKey(body: Record<string, unknown> = {}): Promise<{ id: string; secret: string; json: any }> {
  const r = await s.call('POST', '/gateway/keys', { body: { name: `budget-${++named}`, ...body } });
  expect(r.status, r.text).toBe(201);
  return { id: r.json.id, secret: r.json.secret, json: r.json };
}
const keyOf = async (id: string) =>
  ((await s.call('GET', '/gateway/keys?limit=500')).json.data as any[]).find((k) => k.id === id);
const budgetColumns = (id: string) =>
  s.server.db
    .prepare('SELECT budget_per_day_nanos, budget_per_month_nanos, budget_warn_percent FROM gateway_keys WHERE id = ?')
    .get(id);
/** Fixes the server's clock (its Date) at `at`; it keeps moving from there. */
const clockAt = (at: string) => {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(new Date(at));
};

it('a key says its budget and what it spent today and this month; the change is audited with from and to', async () => {
  const k = await newKey();
  expect(k.json.budget).toEqual({ per_day: null, per_month: null, warn_percent: 80 });
  expect(k.json.spend).toEqual({ currency: 'EUR', today: 0, this_month: 0 });

  const set = await s.call('PUT', `/gateway/keys/${k.id}/budget`, { body: { per_day: 5, per_month: 100 } });
  expect(set.status, set.text).toBe(200);
  expect(set.json.budget).toEqual({ per_day: 5, per_month: 100, warn_percent: 80 });
  expect(budgetColumns(k.id)).toEqual({
    budget_per_day_nanos: 5e9,
    budget_per_month_nanos: 100e9,
    budget_warn_percent: 80,
  });

  expect((await chat(k.secret)).status).toBe(200);
  expect((await chat(k.secret)).status).toBe(200);
  const listed = await keyOf(k.id);
  expect(listed.spend).toEqual({ currency: 'EUR', today: 2 * PER_CALL, this_month: 2 * PER_CALL });

  const again = await s.call('PUT', `/gateway/keys/${k.id}/budget`, {
    body: { per_day: 2.5, per_month: null, warn_percent: 90 },
  });
  expect(again.json.budget).toEqual({ per_day: 2.5, per_month: null, warn_percent: 90 });
  const entries = s.server.db
    .prepare(
      "SELECT actor_subject, target_id, target_name, details FROM audit WHERE action = 'gateway.key.budget' AND target_id = ? ORDER BY seq",
    )
    .all(k.id) as { actor_subject: string; target_id: string; target_name: string; details: string }[];
  expect(entries).toHaveLength(2);
  expect(entries[0].actor_subject).toBe('alice-admin');
  expect(entries[0].target_name).toBe(k.json.name);
  expect(JSON.parse(entries[1].details)).toMatchObject({
    currency: 'EUR',
    from: { per_day: 5, per_month: 100, warn_percent: 80 },
    to: { per_day: 2.5, per_month: null, warn_percent: 90 },
  });
});

it('a budget given at creation holds from the first call, and is in the creation entry', async () => {
  const k = await newKey({ budget: { per_day: PER_CALL, per_month: null } });
  expect(k.json.budget.per_day).toBe(PER_CALL);
  expect((await chat(k.secret)).status).toBe(200);
  const refused = await chat(k.secret);
  expect(refused.status).toBe(429);
  expect(refused.json.detail).toMatch(/per day reached/);
  const details = s.server.db
    .prepare("SELECT details FROM audit WHERE action = 'gateway.key.create' AND target_id = ?")
    .pluck()
    .get(k.id) as string;
  expect(JSON.parse(details).budget).toEqual({ per_day: PER_CALL, per_month: null, warn_percent: 80 });
});

describe('Retry-After is the end of the window whose budget refused', () => {
  it("the day's: the next UTC midnight", async () => {
    clockAt('2026-11-10T22:00:00Z');
    const k = await newKey({ budget: { per_day: PER_CALL, per_month: 100 } });
    expect((await chat(k.secret)).status).toBe(200);
    const refused = await chat(k.secret);
    expect(refused.status).toBe(429);
    const toMidnight = (Date.parse('2026-11-11T00:00:00Z') - Date.now()) / 1000;
    const retry = Number(refused.headers['retry-after']);
    // a second or two passed between the refusal and the reading of the clock here
    expect(retry).toBeGreaterThanOrEqual(Math.floor(toMidnight));
    expect(retry).toBeLessThanOrEqual(Math.ceil(toMidnight) + 2);
    expect(retry).toBeGreaterThan(7100);
    expect(
      s.server.db.prepare('SELECT SUM(rejected_budget) FROM usage_minutes WHERE key_id = ?').pluck().get(k.id),
    ).toBe(1);
  });

  it("the month's: the first of the next month, and a month budget holds across days while the day's starts anew", async () => {
    // three calls' worth a month, two a day
    clockAt('2026-10-30T12:00:00Z');
    const k = await newKey({ budget: { per_day: 2 * PER_CALL, per_month: 3 * PER_CALL } });
    expect((await chat(k.secret)).status).toBe(200);
    expect((await chat(k.secret)).status).toBe(200);
    const dayRefused = await chat(k.secret);
    expect(dayRefused.status).toBe(429);
    expect(dayRefused.json.detail).toMatch(/per day reached/);

    vi.setSystemTime(new Date('2026-10-31T10:00:00Z'));
    expect((await chat(k.secret)).status).toBe(200);
    const monthRefused = await chat(k.secret);
    expect(monthRefused.status).toBe(429);
    expect(monthRefused.json.detail).toMatch(/per month reached/);
    const toMonthEnd = (Date.parse('2026-11-01T00:00:00Z') - Date.now()) / 1000;
    const retry = Number(monthRefused.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(Math.floor(toMonthEnd));
    expect(retry).toBeLessThanOrEqual(Math.ceil(toMonthEnd) + 2);
    expect((await keyOf(k.id)).spend).toEqual({ currency: 'EUR', today: PER_CALL, this_month: 3 * PER_CALL });

    // a new month: the key may spend again
    vi.setSystemTime(new Date('2026-11-01T00:00:05Z'));
    expect((await chat(k.secret)).status).toBe(200);
    expect((await keyOf(k.id)).spend).toEqual({ currency: 'EUR', today: PER_CALL, this_month: PER_CALL });
  });
});

it('clearing the budgets lets the refused key through again at once', async () => {
  const k = await newKey({ budget: { per_day: PER_CALL, per_month: PER_CALL } });
  expect((await chat(k.secret)).status).toBe(200);
  expect((await chat(k.secret)).status).toBe(429);
  const cleared = await s.call('PUT', `/gateway/keys/${k.id}/budget`, { body: { per_day: null, per_month: null } });
  expect(cleared.status).toBe(200);
  expect(cleared.json.budget).toEqual({ per_day: null, per_month: null, warn_percent: 80 });
  expect((await chat(k.secret)).status).toBe(200);
});

it('a call alone over the budget is refused without Retry-After: waiting cannot help', async () => {
  const k = await newKey({ budget: { per_day: PER_CALL / 2, per_month: null } });
  const refused = await chat(k.secret);
  expect(refused.status).toBe(429);
  expect(refused.json.detail).toMatch(/this call alone costs/);
  expect(refused.headers['retry-after']).toBeUndefined();
});

it('bad input, a revoked key, an unknown key and an auditor change nothing', async () => {
  const k = await newKey({ budget: { per_day: 3, per_month: null } });
  const before = budgetColumns(k.id);
  const audited = () =>
    s.server.db
      .prepare("SELECT COUNT(*) FROM audit WHERE action = 'gateway.key.budget' AND outcome = 'success'")
      .pluck()
      .get();
  const successes = audited();
  for (const body of [
    { per_day: -1, per_month: null },
    { per_day: 1, per_month: null, warn_percent: 0 },
    { per_day: 1, per_month: null, warn_percent: 101 },
    { per_day: 1, per_month: null, warn_percent: 50.5 },
    { per_day: 2_000_000, per_month: null },
    { per_day: '1', per_month: null },
    { per_day: 1 },
    { per_day: 1, per_month: null, extra: true },
  ]) {
    const r = await s.call('PUT', `/gateway/keys/${k.id}/budget`, { body });
    expect(r.status, JSON.stringify(body)).toBe(400);
    expect(r.headers['content-type']).toMatch(/application\/problem\+json/);
  }
  const denied = await s.call('PUT', `/gateway/keys/${k.id}/budget`, {
    role: 'auditor',
    body: { per_day: null, per_month: null },
  });
  expect(denied.status).toBe(403);
  expect((await s.call('PUT', '/gateway/keys/key_nope/budget', { body: { per_day: 1, per_month: 1 } })).status).toBe(
    404,
  );
  expect(budgetColumns(k.id)).toEqual(before);

  expect((await s.call('POST', `/gateway/keys/${k.id}/revoke`)).status).toBe(200);
  const frozen = await s.call('PUT', `/gateway/keys/${k.id}/budget`, { body: { per_day: null, per_month: null } });
  expect(frozen.status).toBe(409);
  expect(frozen.json.detail).toMatch(/revoked/);
  expect(budgetColumns(k.id)).toEqual(before);
  expect(audited()).toBe(successes);
});
