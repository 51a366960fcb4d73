import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { costNanos, NANOS_PER_UNIT } from '../../src/contract/index.js';

/**
 * Budgets that hold (issue 41 §5): the budget is checked and the call recorded in one IMMEDIATE
 * transaction, so 200 calls sent at once against a budget with room for exactly 10 let 10 through,
 * never more, and the others are refused as `budget` with a Retry-After at the day's end.
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

const BODY = JSON.stringify({ max_tokens: 1000, messages: [{ role: 'user', content: 'x'.repeat(400) }] });
const callTokens = { input_tokens: Math.ceil(Buffer.byteLength(BODY) / 4), output_tokens: 1000 };

it('200 concurrent calls against a day budget with room for 10: exactly 10 pass', async () => {
  const created = await s.call('POST', '/gateway/keys', { body: { name: 'race' } });
  expect(created.status).toBe(201);
  const { id, secret } = created.json as { id: string; secret: string };
  const perCall = costNanos(PRICE, callTokens);
  // set through the API, as an operator would: the amount in EUR, exactly ten calls' worth
  const set = await s.call('PUT', `/gateway/keys/${id}/budget`, {
    body: { per_day: (perCall * 10) / NANOS_PER_UNIT, per_month: null },
  });
  expect(set.status).toBe(200);
  expect(s.server.db.prepare('SELECT budget_per_day_nanos FROM gateway_keys WHERE id = ?').pluck().get(id)).toBe(
    perCall * 10,
  );

  const results = await Promise.all(
    Array.from({ length: 200 }, () =>
      s.call('POST', '/v1/gateway/chat', {
        role: null,
        token: secret,
        raw: BODY,
      }),
    ),
  );
  const passed = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 429);
  expect(passed).toHaveLength(10);
  expect(refused).toHaveLength(190);
  expect(String(refused[0].json.detail)).toMatch(/budget of .* EUR per day reached/);
  expect(Number(refused[0].headers['retry-after'])).toBeGreaterThan(0);

  const spent = s.server.db
    .prepare(
      'SELECT grain, SUM(cost_nanos) AS cost, SUM(requests) AS requests FROM usage_spend WHERE key_id = ? GROUP BY grain',
    )
    .all(id) as { grain: string; cost: number; requests: number }[];
  for (const g of spent) expect(g).toMatchObject({ cost: perCall * 10, requests: 10 });
  expect(spent.map((g) => g.grain).sort()).toEqual(['day', 'hour', 'minute']);
  const refusals = s.server.db
    .prepare('SELECT SUM(rejected_budget) FROM usage_minutes WHERE key_id = ?')
    .pluck()
    .get(id);
  expect(refusals).toBe(190);
});

it('a key with a budget cannot call an unpriced model; one without a budget can, counted as unpriced', async () => {
  const budgeted = (await s.call('POST', '/gateway/keys', { body: { name: 'budgeted' } })).json as {
    id: string;
    secret: string;
  };
  const free = (await s.call('POST', '/gateway/keys', { body: { name: 'no-budget' } })).json as {
    id: string;
    secret: string;
  };
  expect(
    (await s.call('PUT', `/gateway/keys/${budgeted.id}/budget`, { body: { per_day: null, per_month: 1 } })).status,
  ).toBe(200);
  // embed follows the active model; route it to a model without a price
  expect((await s.call('PUT', '/routing/embed', { body: { model_id: 'mistral-7b' } })).status).toBe(200);
  const call = (secret: string) => s.call('POST', '/v1/gateway/embed', { role: null, token: secret, raw: BODY });
  const refused = await call(budgeted.secret);
  expect(refused.status).toBe(429);
  expect(String(refused.json.detail)).toMatch(/mistral-7b has no price/);
  expect(refused.headers['retry-after']).toBeUndefined();
  expect((await call(free.secret)).status).toBe(200);
  const row = s.server.db
    .prepare("SELECT cost_nanos, unpriced_requests FROM usage_spend WHERE grain = 'day' AND key_id = ?")
    .get(free.id);
  expect(row).toEqual({ cost_nanos: 0, unpriced_requests: 1 });
});
