import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { snapshot, startTestServer, type TestServer } from '../helpers/server.js';
import { recordEuros } from '../helpers/seed-gateway-keys.js';
import { epochMinute } from '../../src/server/gateway/metering.js';

/**
 * `appliance-admin keys budget|near-budget` against the real server with pricing: a budget set by
 * name, what is left out kept, `none` clearing; the keys near or over a budget, fullest first, as a
 * table or JSON. Bad usage sends nothing; an auditor is refused.
 */
let s: TestServer;
let adminToken: string;
let auditorToken: string;
const as = (file: string) => ['--url', s.url, '--token-file', file];
const idOf = (name: string) =>
  s.server.db.prepare('SELECT id FROM gateway_keys WHERE name = ?').pluck().get(name) as string;
const budgetOf = (name: string) =>
  s.server.db
    .prepare(
      'SELECT budget_per_day_nanos AS day, budget_per_month_nanos AS month, budget_warn_percent AS warn FROM gateway_keys WHERE name = ?',
    )
    .get(name);

beforeAll(async () => {
  await ensureBuilt();
  s = await startTestServer({
    config: (root) =>
      fixtureConfig(root, {
        pricing: { currency: 'EUR', models: { 'llama-3.1-8b': { input_per_million: 3, output_per_million: 15 } } },
      }),
  });
  adminToken = writeTokenFile(s.tokens.it_admin);
  auditorToken = writeTokenFile(s.tokens.auditor);
  for (const body of [
    { name: 'team-a' },
    { name: 'nearly', budget: { per_day: 10, per_month: null } },
    { name: 'spent-out', budget: { per_day: null, per_month: 50 } },
    { name: 'calm', budget: { per_day: 100, per_month: null } },
  ])
    expect((await s.call('POST', '/gateway/keys', { body })).status).toBe(201);
  const spend = (name: string, euros: number) => recordEuros(s.server.db, idOf(name), epochMinute(Date.now()), euros);
  spend('nearly', 8.5);
  spend('spent-out', 50);
  spend('calm', 1);
});
afterAll(async () => {
  await s?.close();
});

describe('appliance-admin keys budget and near-budget', () => {
  it('budget sets a key’s budgets by name, keeps what is left out, and clears with none', async () => {
    const set = await runCli([
      'keys',
      'budget',
      'team-a',
      '--per-day',
      '5',
      '--per-month',
      '100.50',
      ...as(adminToken),
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(
      /^team-a \(key_\w+\): budget 5 EUR a day, 100\.50 EUR a month \(warns at 80%\); spent 0 EUR today, 0 EUR this month \(UTC\)\n$/,
    );
    expect(budgetOf('team-a')).toEqual({ day: 5e9, month: 100.5e9, warn: 80 });
    const warn = await runCli(['keys', 'budget', idOf('team-a'), '--warn-percent', '90', ...as(adminToken)]);
    expect(warn.code, warn.stderr).toBe(0);
    expect(budgetOf('team-a')).toEqual({ day: 5e9, month: 100.5e9, warn: 90 });
    const cleared = await runCli(['keys', 'budget', 'team-a', '--per-day', 'none', ...as(adminToken)]);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(budgetOf('team-a')).toEqual({ day: null, month: 100.5e9, warn: 90 });
    const entries = s.server.db
      .prepare("SELECT details FROM audit WHERE action = 'gateway.key.budget' AND target_id = ? ORDER BY seq")
      .pluck()
      .all(idOf('team-a')) as string[];
    expect(entries).toHaveLength(3);
    expect(JSON.parse(entries[2])).toMatchObject({
      from: { per_day: 5, per_month: 100.5, warn_percent: 90 },
      to: { per_day: null, per_month: 100.5, warn_percent: 90 },
    });
  });

  it('bad usage sends nothing; an auditor is refused with the reason', async () => {
    const audit = snapshot(s, 'audit');
    const keys = snapshot(s, 'gateway_keys');
    for (const [args, words] of [
      [[], /keys budget takes --per-day, --per-month or --warn-percent/],
      [['--per-day=-1'], /--per-day -1: an amount such as 5/],
      [['--per-month', '2000000'], /at most 1000000/],
      [['--per-day', '1.1234567'], /at most 6 decimal places/],
      [['--warn-percent', '0'], /--warn-percent must be a whole number from 1 to 100/],
      [['--days', '3'], /keys budget takes no --days/],
    ] as const) {
      const r = await runCli(['keys', 'budget', 'calm', ...args, ...as(adminToken)]);
      expect([r.code, r.stderr], args.join(' ')).toEqual([2, expect.stringMatching(words)]);
    }
    const denied = await runCli(['keys', 'budget', 'calm', '--per-day', '1', ...as(auditorToken)]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/keys budget failed: .*role auditor may not perform gateway\.key\.budget/);
    expect(snapshot(s, 'gateway_keys')).toEqual(keys);
    // the auditor's refusal is audited (denied); nothing else was written
    expect(snapshot(s, 'audit').length).toBe(audit.length + 1);
  });

  it('near-budget lists the active keys past their warning share, fullest first, as a table or JSON', async () => {
    const r = await runCli(['keys', 'near-budget', ...as(auditorToken)]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('2 active keys near or over a money budget');
    expect(lines[1]).toMatch(/^Name\s+Id\s+Spend\s+Why$/);
    expect(lines[2]).toMatch(
      /^spent-out\s+key_\w+\s+50\.00\/50 EUR\/mo 100%\s+spent 50\.00 of 50 EUR this month \(100%/,
    );
    expect(lines[3]).toMatch(
      /^nearly\s+key_\w+\s+8\.50\/10 EUR 85%\s+spent 8\.50 of 10 EUR today \(85%; warns at 80%\)$/,
    );
    const json = await runCli(['keys', 'near-budget', '--json', ...as(auditorToken)]);
    expect(json.code, json.stderr).toBe(0);
    const keys = JSON.parse(json.stdout) as { name: string; spend: { today: number } }[];
    expect(keys.map((k) => k.name)).toEqual(['spent-out', 'nearly']);
    expect(keys[1].spend.today).toBe(8.5);
  });

  it('keys --help names budget and near-budget; the main help lists them', async () => {
    const help = await runCli(['keys', '--help']);
    expect(help.stdout).toMatch(/keys budget KEY \[--per-day AMOUNT\] \[--per-month AMOUNT\] \[--warn-percent P\]/);
    expect(help.stdout).toMatch(/keys near-budget \[--json\]/);
    const main = await runCli(['--help']);
    expect(main.stdout).toMatch(/appliance-admin keys budget KEY/);
    expect(main.stdout).toMatch(/appliance-admin keys near-budget/);
  });
});
