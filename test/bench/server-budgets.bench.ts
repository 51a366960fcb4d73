import { rmSync } from 'node:fs';
import { startTestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { epochMinute } from '../../src/server/gateway/metering.js';
import { recordSpend } from '../../src/server/gateway/spend.js';
import { loadAverage, median, nowMs, percentile } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 41 §5: what a key's money budgets add to a gateway call. One server on loopback with
 * pricing; two keys with the same 30 days of spend history (a day bucket per day, per model and
 * workload, as the front door writes them), one with a day and a month budget high enough never
 * to refuse, the other without. The same call is sent with each key in turn, one request at a
 * time, so that both see the same machine load and the same database: the budgeted key's call
 * also reads its budget and sums its spend over the day and the month in the front door's
 * IMMEDIATE transaction.
 */
export const name = 'server-budgets';

const PRICE = { input_per_million: 3, output_per_million: 15 };
const DAY_MINUTES = 1440;
const BODY = JSON.stringify({ max_tokens: 200, messages: [{ role: 'user', content: 'x'.repeat(400) }] });

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const rounds = ctx.quick ? 500 : 5000;
  const s = await startTestServer({
    config: (root) =>
      fixtureConfig(root, {
        pricing: { currency: 'EUR', models: { 'llama-3.1-8b': PRICE, 'mistral-7b': PRICE } },
      }),
  });
  try {
    const create = async (name: string, budget?: object) => {
      const r = await s.call('POST', '/gateway/keys', { body: { name, ...(budget ? { budget } : {}) } });
      if (r.status !== 201) throw new Error(`creating ${name} answered ${r.status}: ${r.text}`);
      return r.json as { id: string; secret: string };
    };
    const budgeted = await create('budgeted', { per_day: 1_000_000, per_month: 1_000_000 });
    const plain = await create('no-budget');
    const today = epochMinute(Date.now());
    const history = s.server.db.transaction(() => {
      for (const key of [budgeted, plain])
        for (let d = 1; d <= 30; d++)
          for (const [model_id, workload] of [
            ['llama-3.1-8b', 'chat'],
            ['mistral-7b', 'summarize'],
          ])
            recordSpend(s.server.db, key.id, today - d * DAY_MINUTES, {
              model_id,
              workload,
              requests: 1000,
              input_tokens: 500_000,
              output_tokens: 200_000,
              cost_nanos: 4_500_000_000,
            });
    });
    history();
    const call = async (secret: string): Promise<number> => {
      const t0 = nowMs();
      const r = await s.call('POST', '/v1/gateway/chat', { role: null, token: secret, raw: BODY });
      const ms = nowMs() - t0;
      if (r.status !== 200) throw new Error(`the gateway answered ${r.status}: ${r.text}`);
      return ms;
    };
    // warm-up: routes compiled, statements prepared, hot pages cached
    for (let i = 0; i < 200; i++) {
      await call(budgeted.secret);
      await call(plain.secret);
    }
    const on: number[] = [];
    const off: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // which key goes first alternates, so neither always follows the other's write
      if (i % 2 === 0) {
        on.push(await call(budgeted.secret));
        off.push(await call(plain.secret));
      } else {
        off.push(await call(plain.secret));
        on.push(await call(budgeted.secret));
      }
    }
    const fmt = (ms: number[]) =>
      `p50 ${median(ms).toFixed(2)} ms, p99 ${percentile(ms, 99).toFixed(2)} ms, n ${ms.length.toLocaleString('en-US')}`;
    ctx.log(`budgets on: ${fmt(on)}; off: ${fmt(off)}; load average ${loadAverage()}`);
    return [
      {
        label: `gateway call (POST /v1/gateway/chat) p99 over HTTP, key with day and month budgets, ${rounds.toLocaleString('en-US')} calls`,
        value: percentile(on, 99),
        unit: 'ms',
        baseline: { label: 'the same call, key without a budget, same server and run', value: percentile(off, 99) },
        target: { maxRatio: 1.1 },
        note: `on ${fmt(on)}; off ${fmt(off)}; 30 days of spend history per key; load ${loadAverage()}`,
      },
    ];
  } finally {
    await s.close();
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}
