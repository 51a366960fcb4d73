import { describe, expect, it } from 'vitest';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { startTestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { recordSpend } from '../../src/server/gateway/spend.js';
import { recordUsage, epochMinute } from '../../src/server/gateway/metering.js';
import { spendWindow } from '../../screens/spend.js';

/**
 * Spend in money on the dashboard (issue 41 §4): the models' prices, each key's cost on the usage
 * screen, the spend screen by model, workload and key, and the overview's watch line for an
 * unpriced model serving traffic. llama (chat's model) is priced, mistral (summarize's) is not.
 */
const HOUR = 3_600_000;
const NANO = 1_000_000_000;
const keyIds: Record<string, string> = {};

const suite = setupScreenSuite({
  start: () =>
    startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          pricing: { currency: 'EUR', models: { 'llama-3.1-8b': { input_per_million: 0.2, output_per_million: 0.6 } } },
        }),
    }),
  setup: async (s) => {
    for (const name of ['chat-app', 'digest-bot']) {
      const r = await s.call('POST', '/gateway/keys', { body: { name } });
      keyIds[name] = (r.json as { id: string }).id;
    }
    const now = Date.now();
    const spent = (
      key: string,
      ago: number,
      workload: string,
      model: string,
      requests: number,
      nanos: number | null,
    ) => {
      const minute = epochMinute(now - ago);
      recordUsage(s.server.db, keyIds[key], minute, {
        requests,
        input_tokens: requests * 100,
        output_tokens: requests * 10,
      });
      recordSpend(s.server.db, keyIds[key], minute, {
        model_id: model,
        workload,
        requests,
        input_tokens: requests * 100,
        output_tokens: requests * 10,
        cost_nanos: nanos,
      });
    };
    spent('chat-app', 2 * HOUR, 'chat', 'llama-3.1-8b', 40, 12.5 * NANO);
    spent('chat-app', 20 * 24 * HOUR, 'chat', 'llama-3.1-8b', 10, 100 * NANO); // in 30 days, not in 7
    spent('digest-bot', 10 * 60_000, 'summarize', 'mistral-7b', 7, null);
  },
});

/** The table's line of one row. */
const rowOf = (f: string, name: string) => f.split('\n').find((l) => l.slice(2).startsWith(name)) ?? '';

describe('spend windows', () => {
  it('end with the current minute; 24 hours start on an hour, 7 and 30 days on a UTC midnight', () => {
    const now = Date.parse('2026-11-21T09:41:30.500Z');
    expect(spendWindow('day', now)).toEqual({
      start_time: '2026-11-20T10:00:00.000Z',
      end_time: '2026-11-21T09:42:00.000Z',
    });
    expect(spendWindow('week', now).start_time).toBe('2026-11-15T00:00:00.000Z');
    expect(spendWindow('month', now).start_time).toBe('2026-10-23T00:00:00.000Z');
  });
});

describe('spend on the dashboard', () => {
  it('the models screen shows each price per million tokens, and "unpriced" where the pricing has none', async () => {
    const d = suite.render({ screen: 'models', columns: 160, rows: 30 });
    const f = await d.waitForText('Mistral 7B Instruct');
    expect(rowOf(f, 'Llama 3.1 8B Instruct')).toMatch(/◆ ACTIVE\s+0\.20\/0\.60 EUR\s/);
    expect(rowOf(f, 'Mistral 7B Instruct')).toMatch(/● present\s+unpriced\s/);
    expect(f).toContain('2 unpriced');
  });

  it('the usage screen shows each key’s cost with the currency, its unpriced calls apart, and m opens its cost by model', async () => {
    const d = suite.render({ screen: 'usage' });
    const f = await d.waitForText('digest-bot');
    expect(rowOf(f, 'chat-app')).toMatch(/chat-app\s+40\s+0\s+12\.50 EUR\s/);
    expect(rowOf(f, 'digest-bot')).toMatch(/digest-bot\s+7\s+0\s+0\.00 EUR \+7 unpriced\s/);
    expect(f).toMatch(/2 keys · 47 requests · 0 rejected · 12\.50 EUR/);
    await selectRow(d, 'digest-bot');
    await d.press('m');
    const s = await d.waitForText('key digest-bot');
    // over the usage screen's window (its last 24 hours): the same 7 calls as its row
    expect(s).toMatch(/Last 24 hours by hour · 0\.00 EUR · 7 calls of unknown cost · key digest-bot · 1 model · /);
    expect(rowOf(s, 'Mistral 7B Instruct')).toMatch(/unpriced\s+0%\s+7\s+7\s/);
    expect(s).not.toContain('Llama');
  });

  it('the spend screen: by model over 7 days, b groups by workload then key, M takes 30 days, Enter on a key opens its models', async () => {
    const d = suite.render({ screen: 'spend', columns: 120, rows: 30 });
    let f = await d.waitForText('Llama 3.1 8B Instruct');
    expect(f).toMatch(/Last 7 days by day · 12\.50 EUR · 7 calls of unknown cost · 2 models · \d{4}-/);
    expect(rowOf(f, 'Llama 3.1 8B Instruct')).toMatch(/12\.50 EUR\s+100%\s+40\s+0\s/);
    await d.press('b');
    f = await d.waitForText('2 workloads');
    expect(rowOf(f, 'chat')).toMatch(/chat\s+12\.50 EUR/);
    expect(rowOf(f, 'summarize')).toMatch(/summarize\s+unpriced/);
    await d.press('b');
    f = await d.waitForText('2 keys');
    await d.press('M');
    f = await d.waitForText('Last 30 days by day');
    expect(rowOf(f, 'chat-app')).toMatch(/chat-app\s+112\.50 EUR\s+100%\s+50\s/);
    await selectRow(d, 'chat-app');
    await d.press('enter');
    f = await d.waitForText('key chat-app · 1 model');
    // every row again
    await d.press('c');
    await d.waitFor((x) => !x.includes('key chat-app') && x.includes('2 models'), 'all keys again');
  });

  it('c all keys is disabled while no key is chosen (pressing it says why); after Enter on a key it is offered', async () => {
    const hintsOf = (f: string) => f.split('\n').find((l) => l.startsWith('D 24 h')) ?? '';
    const d = suite.render({ screen: 'spend', columns: 120, rows: 30 });
    await d.waitForText('Llama 3.1 8B Instruct');
    const hints = hintsOf(await d.waitFor((f) => hintsOf(f).includes('(✕'), 'the disabled hint'));
    expect(hints).toMatch(/ c all keys ✕ .*\(✕ already showing all keys\)/);
    await d.press('c');
    await d.waitForText('all keys: already showing all keys.');
    await d.press('b', 'b');
    await d.waitForText('2 keys');
    await selectRow(d, 'chat-app');
    await d.press('enter');
    const f = await d.waitForText('key chat-app · 1 model');
    expect(hintsOf(f)).toMatch(/ c all keys /);
    expect(hintsOf(f)).not.toContain('✕');
  });

  it("Enter on a model: its figures in words and a line per day, not the row's insides", async () => {
    const d = suite.render({ screen: 'spend', columns: 120, rows: 40 });
    await d.waitForText('Llama 3.1 8B Instruct');
    await selectRow(d, 'Llama 3.1 8B Instruct');
    await d.press('enter');
    const f = await d.waitForText('Detail: llama-3.1-8b');
    expect(f).toMatch(/model\s+Llama 3\.1 8B Instruct \(llama-3\.1-8b\)/);
    expect(f).toMatch(/cost\s+12\.50 EUR \(priced calls\)/);
    expect(f).toMatch(/share\s+100% of the cost listed/);
    expect(f).toMatch(/\d{4}-\d\d-\d\d 00:00 UTC\s+40 requests · 12\.50 EUR/);
    expect(f).not.toMatch(/g\.(group|buckets)|0\.\d{6,}/);
  });

  it('an auditor reads the same figures; nothing on the screen changes the appliance', async () => {
    const audit = suite.auditRows();
    const spendRows = () => suite.db.prepare('SELECT COUNT(*) FROM usage_spend').pluck().get();
    const before = spendRows();
    const d = suite.render({ screen: 'spend', role: 'auditor' });
    await d.waitForText('Llama 3.1 8B Instruct');
    await d.press('b');
    await d.waitForText('2 workloads');
    expect(suite.auditRows()).toEqual(audit);
    expect(spendRows()).toBe(before);
  });

  it('the overview watches an unpriced model serving traffic and opens the spend screen on it', async () => {
    const d = suite.render({ screen: 'overview', columns: 160, rows: 40 });
    const f = await d.waitForText('has no price but serves summarize');
    expect(f).toMatch(/▲ WARN\s+Model Mistral 7B Instruct\s+has no price but serves summarize/);
    expect(f).toContain(
      'Model Mistral 7B Instruct: has no price but serves summarize: 7 calls in the last hour of unknown cost (not free)',
    );
    await selectRow(d, 'Model Mistral');
    await d.press('enter');
    const spend = await d.waitForText('Last 24 hours by hour');
    expect(spend).toMatch(/› Mistral 7B Instruct\s+unpriced/);
  });
});
