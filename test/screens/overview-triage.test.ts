import { describe, expect, it, vi } from 'vitest';
import type {
  BudgetUsage,
  Connector,
  Deployment,
  GatewayKey,
  KeyUsage,
  Model,
  RoutingEntry,
  Summary,
  Usage,
} from '../../src/contract/index.js';
import {
  BudgetUsage as BudgetUsageSchema,
  KEY_COUNT_CAP,
  Summary as SummarySchema,
  Usage as UsageSchema,
} from '../../src/contract/index.js';
import { triage as triageAt } from '../../src/dashboard/triage/triage.js';
import { EXPIRY_LINES } from '../../src/dashboard/triage/gateway-keys.js';
import { TRIAGE_SOURCES, type TriageInput, type TriageSource } from '../../src/dashboard/triage/sources.js';

/**
 * triage() as a pure function, with contract-shaped inputs (each parsed by its contract schema, so
 * the test cannot drift from the shapes the server will send): the routes whose server side is
 * not on this branch yet (summaries, budget usage, rejections by cause) are covered here.
 */
const ok = (data: unknown) => ({ state: 'ok' as const, data });
const NOW = '2026-11-26T12:00:00Z';

const deployment = (
  status: Deployment['status'],
  components: Partial<Deployment['components'][number]>[] = [],
): Deployment => ({
  status,
  version: '1.2.3',
  checked_at: NOW,
  host: { hostname: 'vm', os: 'Linux', cpus: 2, memory_bytes: 1, disk_free_bytes: 1, accelerators: [] },
  components: components.map((c) => ({ name: 'x', status: 'healthy', version: null, message: null, ...c })),
});
const connector = (
  id: string,
  name: string,
  state: Connector['state'],
  lastSync: Connector['last_sync'] = null,
): Connector => ({
  id,
  name,
  kind: 'crm',
  state,
  last_sync: lastSync,
  rbac_labels: [],
  sources: [],
});
const key = (
  id: string,
  name: string,
  quota: Partial<GatewayKey['quota']> = {},
  status: GatewayKey['status'] = 'active',
): GatewayKey => ({
  id,
  name,
  status,
  prefix: 'agk_x',
  created_at: NOW,
  created_by: 'a',
  revoked_at: null,
  last_used_at: null,
  quota: { requests_per_minute: null, tokens_per_minute: null, tokens_per_day: null, ...quota },
  quota_changed_at: NOW,
  rejected_since_quota_change: 0,
  expires_at: null,
  rotated_at: null,
  previous_prefix: null,
  previous_valid_until: null,
  budget: { per_day: null, per_month: null, warn_percent: 80 },
  spend: null,
});
const keyUsage = (key_id: string, u: Partial<KeyUsage> = {}): KeyUsage => ({
  key_id,
  // an entry that does not say its key: the board names and judges it from the keys it read
  key: null,
  requests: 0,
  rejected: 0,
  input_tokens: 0,
  output_tokens: 0,
  cost: 0,
  unpriced_requests: 0,
  buckets: [],
  rejected_workloads: [],
  rejected_by: {
    requests_per_minute: 0,
    tokens_per_minute: 0,
    tokens_per_day: 0,
    revoked: 0,
    unknown_workload: 0,
    expired: 0,
    rotated: 0,
    budget: 0,
  },
  ...u,
});
const usage = (data: KeyUsage[], bucket: 'hour' | 'day' = 'hour'): Usage =>
  UsageSchema.parse({ start_time: NOW, end_time: NOW, bucket, currency: null, data });
const summary = (group_by: string, then_by: string | null, groups: Summary['groups'], other = 0): Summary =>
  SummarySchema.parse({ total: groups.reduce((t, g) => t + g.count, 0) + other, group_by, then_by, groups, other });
const page = <T>(data: T[]) => ({ data, next_cursor: null, has_more: false });
const limits = {
  tokens_per_run: 20_000,
  tool_calls_per_run: 20,
  seconds_per_run: 300,
  tokens_per_day: null as number | null,
};
const zeroOver = { tokens_per_run: 0, tool_calls_per_run: 0, seconds_per_run: 0 };

/** Every source answered, with nothing wrong in any of them. */
/** The board as it reads at NOW: keys' expiry and idleness are judged against that time, not the test's. */
const triage = (input: TriageInput, o: Parameters<typeof triageAt>[1] = {}) =>
  triageAt(input, { nowMs: Date.parse(NOW), ...o });

function healthy(): Required<TriageInput> {
  return {
    deployment: ok(deployment('healthy', [{ name: 'gateway' }])),
    connectors: ok(page([connector('conn_docs', 'Team share', 'healthy')])),
    usage: ok(usage([keyUsage('key_a', { requests: 10 })])),
    rejections: ok(usage([keyUsage('key_a', { requests: 10 })])),
    usageToday: ok(usage([keyUsage('key_a', { requests: 100 })], 'day')),
    keys: ok(page([key('key_a', 'intranet')])),
    keysExpiring: ok({ ...page([]), total: 0, total_capped: false }),
    keysUnused: ok({ ...page([]), total: 0, total_capped: false }),
    failuresByError: ok(summary('agent', 'error_code', [])),
    failuresByTool: ok(summary('agent', 'tool', [])),
    budgetUsage: ok(BudgetUsageSchema.parse({ start_time: NOW, end_time: NOW, agents: [] } satisfies BudgetUsage)),
    models: ok(
      page<Model>([
        {
          id: 'llama',
          name: 'Llama',
          family: 'llama',
          parameters: null,
          quantization: null,
          size_bytes: null,
          state: 'present',
          active: true,
          price: null,
          currency: null,
        },
      ]),
    ),
    routing: ok(page<RoutingEntry>([])),
    denied: ok(summary('actor', 'action', [])),
    authRefused: ok(page([])),
    auditNewest: ok(page([])),
    auditCheckpoint: ok({ ...page([]), public_keys: [] }),
  };
}

const byKey = (input: TriageInput) => new Map(triage(input).map((l) => [l.key, l]));

describe('triage()', () => {
  it('with nothing to attend to, says so and gives the headline figures', () => {
    const lines = triage(healthy());
    expect(lines[0]).toMatchObject({ key: 'all-clear', severity: 'ok', what: 'Nothing needs attention' });
    expect(lines.every((l) => l.severity === 'ok')).toBe(true);
    const text = lines.map((l) => `${l.what}: ${l.reason} [${l.count ?? ''} ${l.window}]`).join('\n');
    expect(text).toContain('Deployment healthy: version 1.2.3');
    expect(text).toContain('Connectors: 1 connector, none failing');
    expect(text).toContain('Gateway: 10 requests from 1 key, none rejected [10 last hour]');
    expect(text).toContain('Active model: Llama');
  });

  it("writes its counts without Intl, whose first use loads ICU's data before the overview's first frame", () => {
    const toLocaleString = vi.spyOn(Number.prototype, 'toLocaleString');
    const numberFormat = vi.spyOn(Intl, 'NumberFormat');
    try {
      const lines = triage({ ...healthy(), usage: ok(usage([keyUsage('key_a', { requests: 12_345 })])) });
      expect(lines.map((l) => l.reason).join('\n')).toContain('12,345 requests');
      expect(toLocaleString).not.toHaveBeenCalled();
      expect(numberFormat).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('a failing connector (with its last error) and a degraded component, worst first, each opening its cause', () => {
    const input = {
      ...healthy(),
      deployment: ok(
        deployment('degraded', [
          { name: 'gateway' },
          { name: 'ingestion', status: 'degraded', message: 'last sync failed for conn_crm' },
        ]),
      ),
      connectors: ok(
        page([
          connector('conn_docs', 'Team share', 'healthy'),
          connector('conn_crm', 'Cloud CRM', 'error', {
            at: NOW,
            status: 'failed',
            job_id: 'job_1',
            items: 0,
            error: 'no driver for remote sources',
          }),
        ]),
      ),
    };
    const lines = triage(input);
    expect(lines.map((l) => l.key)).toEqual(['connector:conn_crm', 'component:ingestion']);
    expect(lines[0]).toMatchObject({
      severity: 'crit',
      what: 'Connector Cloud CRM',
      reason: 'error: last sync failed: no driver for remote sources',
      count: null,
      window: 'now',
      link: { screen: 'connectors', select: 'conn_crm' },
    });
    expect(lines[1]).toMatchObject({
      severity: 'warn',
      what: 'Deployment degraded',
      reason: 'ingestion degraded: last sync failed for conn_crm',
      link: { screen: 'deployment' },
    });
    // a component down is critical
    expect(
      byKey({ ...input, deployment: ok(deployment('degraded', [{ name: 'database', status: 'down' }])) }).get(
        'component:database',
      )?.severity,
    ).toBe('crit');
  });

  it('a failed sync without an error text says which job failed', () => {
    const lines = byKey({
      ...healthy(),
      connectors: ok(
        page([
          connector('conn_crm', 'Cloud CRM', 'error', {
            at: NOW,
            status: 'failed',
            job_id: 'job_9',
            items: 0,
            error: null,
          }),
        ]),
      ),
    });
    expect(lines.get('connector:conn_crm')?.reason).toBe('error: last sync failed at 2026-11-26 12:00 UTC (job job_9)');
  });

  it('keys with rejections in the last hour, by cause, largest first', () => {
    const lines = byKey({
      ...healthy(),
      keys: ok(page([key('key_a', 'intranet'), key('key_b', 'batch')])),
      rejections: ok(
        usage([
          keyUsage('key_a', {
            requests: 50,
            rejected: 3,
            rejected_by: {
              requests_per_minute: 0,
              tokens_per_minute: 1,
              tokens_per_day: 0,
              revoked: 0,
              unknown_workload: 2,
              expired: 0,
              rotated: 0,
              budget: 0,
            },
          }),
          keyUsage('key_b', {
            requests: 5,
            rejected: 12,
            rejected_by: {
              requests_per_minute: 12,
              tokens_per_minute: 0,
              tokens_per_day: 0,
              revoked: 0,
              unknown_workload: 0,
              expired: 0,
              rotated: 0,
              budget: 0,
            },
          }),
        ]),
      ),
    });
    expect(lines.get('key-rejections:key_a')).toMatchObject({
      severity: 'warn',
      what: 'Key intranet',
      reason: '3 calls rejected in the last hour: 2 unknown workload, 1 tokens/minute quota',
      count: 3,
      window: 'last hour',
      link: { screen: 'keys', select: 'key_a' },
    });
    expect(lines.get('key-rejections:key_b')?.reason).toBe(
      '12 calls rejected in the last hour: 12 requests/minute quota',
    );
    // the key with more rejections comes first
    const keys = triage({
      ...healthy(),
      keys: ok(page([key('key_a', 'intranet'), key('key_b', 'batch')])),
      rejections: ok(
        usage([
          keyUsage('key_a', {
            rejected: 3,
            rejected_by: {
              requests_per_minute: 3,
              tokens_per_minute: 0,
              tokens_per_day: 0,
              revoked: 0,
              unknown_workload: 0,
              expired: 0,
              rotated: 0,
              budget: 0,
            },
          }),
          keyUsage('key_b', {
            rejected: 12,
            rejected_by: {
              requests_per_minute: 12,
              tokens_per_minute: 0,
              tokens_per_day: 0,
              revoked: 0,
              unknown_workload: 0,
              expired: 0,
              rotated: 0,
              budget: 0,
            },
          }),
        ]),
      ),
    }).map((l) => l.key);
    expect(keys.indexOf('key-rejections:key_b')).toBeLessThan(keys.indexOf('key-rejections:key_a'));
    // at the last hour the board asks no window of its own: the hour's usage gives the rejections
    const { rejections: _none, ...hourly } = healthy();
    const fromUsage = byKey({
      ...hourly,
      keys: ok(page([key('key_b', 'batch')])),
      usage: ok(
        usage([
          keyUsage('key_b', {
            rejected: 4,
            rejected_by: {
              requests_per_minute: 4,
              tokens_per_minute: 0,
              tokens_per_day: 0,
              revoked: 0,
              unknown_workload: 0,
              expired: 0,
              rotated: 0,
              budget: 0,
            },
          }),
        ]),
      ),
    });
    expect(fromUsage.get('key-rejections:key_b')?.reason).toBe(
      '4 calls rejected in the last hour: 4 requests/minute quota',
    );
    expect([...fromUsage.keys()].filter((k) => k.startsWith('source:'))).toEqual([]);
  });

  it('counts key rejections over the window the answer covers, naming the unknown workloads, sanitized', () => {
    const over = (hours: number, data: KeyUsage[]) =>
      UsageSchema.parse({
        start_time: new Date(Date.parse(NOW) - hours * 3600_000).toISOString(),
        end_time: NOW,
        bucket: 'day',
        currency: null,
        data,
      });
    const stray = keyUsage('key_a', {
      rejected: 9,
      rejected_by: {
        requests_per_minute: 0,
        tokens_per_minute: 0,
        tokens_per_day: 0,
        revoked: 0,
        unknown_workload: 9,
        expired: 0,
        rotated: 0,
        budget: 0,
      },
      rejected_workloads: [
        { workload: 'summarize-v0', rejected: 5 },
        { workload: '\u001b[31mred\u001b[0m', rejected: 2 },
        { workload: 'chat-old', rejected: 1 },
        { workload: 'x', rejected: 1 },
      ],
    });
    for (const [hours, window] of [
      [1, 'last hour'],
      [24, 'last 24 h'],
      [168, 'last 7 d'],
    ] as const) {
      const line = byKey({ ...healthy(), rejections: ok(over(hours, [stray])) }).get('key-rejections:key_a');
      expect(line).toMatchObject({ count: 9, window });
      expect(line?.reason).toMatch(
        new RegExp(`^9 calls rejected in the ${window}: 9 unknown workload \\(summarize-v0 ×5, `),
      );
      expect(line?.reason).toMatch(/, chat-old, 1 more\)$/);
      expect(line?.reason).not.toContain('\u001b');
    }
  });

  it('keys near a quota: >= 80% of tokens a day today, or an average minute >= 80% of a per-minute quota', () => {
    const lines = byKey({
      ...healthy(),
      keys: ok(
        page([
          key('key_day', 'daily', { tokens_per_day: 10_000 }),
          key('key_rpm', 'busy', { requests_per_minute: 10 }),
          key('key_fine', 'fine', { tokens_per_day: 10_000, requests_per_minute: 10 }),
          key('key_gone', 'revoked', { tokens_per_day: 10 }, 'revoked'),
        ]),
      ),
      usage: ok(usage([keyUsage('key_rpm', { requests: 540 }), keyUsage('key_fine', { requests: 470 })])),
      usageToday: ok(
        usage(
          [
            keyUsage('key_day', { input_tokens: 9_000, output_tokens: 200 }),
            keyUsage('key_fine', { input_tokens: 7_000 }),
            keyUsage('key_gone', { input_tokens: 50 }),
          ],
          'day',
        ),
      ),
    });
    expect(lines.get('key-quota:key_day')).toMatchObject({
      severity: 'warn',
      what: 'Key daily',
      reason: 'near its quota: used 9,200 of 10,000 tokens today (UTC)',
      count: 9_200,
      window: 'today',
      link: { screen: 'keys', select: 'key_day' },
    });
    expect(lines.get('key-quota:key_rpm')).toMatchObject({
      reason: 'near its quota: averaged 9 of 10 requests a minute over the last hour',
      count: 540,
      window: 'last hour',
    });
    expect(lines.has('key-quota:key_fine')).toBe(false);
    expect(lines.has('key-quota:key_gone')).toBe(false);
    // at or over it, it says so
    const over = byKey({
      ...healthy(),
      keys: ok(page([key('key_day', 'daily', { tokens_per_day: 10_000 })])),
      usageToday: ok(usage([keyUsage('key_day', { input_tokens: 12_000 })], 'day')),
    });
    expect(over.get('key-quota:key_day')?.reason).toBe('at its quota: used 12,000 of 10,000 tokens today (UTC)');
  });

  it('keys that expire within 7 days as the appliance finds them among every key, soonest first, each opening the keys screen on it; the rest as one line', () => {
    const at = (days: number) => new Date(Date.parse(NOW) + days * 86_400_000).toISOString();
    // the appliance's answer to expires_within_days=7, soonest first, with its count
    const answer = (keys: GatewayKey[], total: number, total_capped = false) =>
      ok({ data: keys, next_cursor: null, has_more: total > keys.length, total, total_capped });
    const lines = triage({
      ...healthy(),
      keysExpiring: answer(
        [
          { ...key('key_b', 'batch'), expires_at: at(0.25) },
          { ...key('key_a', 'intranet'), expires_at: at(3.5) },
        ],
        2,
      ),
    });
    const expiring = lines.filter((l) => l.key.startsWith('key-expiry:'));
    expect(expiring.map((l) => `${l.what}: ${l.reason}`)).toEqual([
      'Key batch: expires in 6 hours (2026-11-26 18:00 UTC): its clients are refused from then on',
      'Key intranet: expires in 3 days (2026-11-30 00:00 UTC): its clients are refused from then on',
    ]);
    expect(expiring[0]).toMatchObject({
      severity: 'warn',
      window: 'next 7 d',
      link: { screen: 'keys', select: 'key_b', extra: { unused: 'expiring' } },
    });
    expect(lines.some((l) => l.key === 'keys-expiring-more')).toBe(false);
    // a million keys: the first EXPIRY_LINES by name, the rest counted in one line
    const many = Array.from({ length: EXPIRY_LINES }, (_, i) => ({
      ...key(`key_${i}`, `k-${i}`),
      expires_at: at(1 + i / 100),
    }));
    const big = triage({ ...healthy(), keysExpiring: answer(many, 1234) });
    expect(big.filter((l) => l.key.startsWith('key-expiry:'))).toHaveLength(EXPIRY_LINES);
    expect(big.find((l) => l.key === 'keys-expiring-more')).toEqual({
      key: 'keys-expiring-more',
      severity: 'warn',
      what: 'Gateway keys',
      reason: `${(1234 - EXPIRY_LINES).toLocaleString('en-US')} other active keys expire within 7 days: their clients are refused from then on`,
      count: 1234 - EXPIRY_LINES,
      window: 'next 7 d',
      link: { screen: 'keys', extra: { unused: 'expiring' } },
    });
    const capped = triage({ ...healthy(), keysExpiring: answer(many, KEY_COUNT_CAP, true) });
    expect(capped.find((l) => l.key === 'keys-expiring-more')?.reason).toMatch(/^more than 9,990 other active keys/);
  });

  it("keys past their budget's warning share (WARN), fullest first, each opening the keys screen on it; a key under it, a revoked one, or an appliance without pricing give no line", () => {
    const spend = (today: number, this_month: number) => ({ currency: 'EUR', today, this_month });
    const budget = (per_day: number | null, per_month: number | null, warn_percent = 80) => ({
      per_day,
      per_month,
      warn_percent,
    });
    const lines = triage({
      ...healthy(),
      keys: ok(
        page([
          { ...key('key_a', 'near-day'), budget: budget(5, null), spend: spend(4.1, 4.1) },
          { ...key('key_b', 'month-over'), budget: budget(null, 100, 95), spend: spend(1, 100) },
          { ...key('key_c', 'calm'), budget: budget(5, 100), spend: spend(3.9, 50) },
          { ...key('key_d', 'gone', {}, 'revoked'), budget: budget(1, null), spend: spend(2, 2) },
          { ...key('key_e', 'unpriced'), budget: budget(1, null), spend: null },
          { ...key('key_f', 'low-warn'), budget: budget(10, null, 30), spend: spend(3, 3) },
        ]),
      ),
    });
    const near = lines.filter((l) => l.key.startsWith('key-budget:'));
    expect(near.map((l) => `${l.severity} ${l.what}: ${l.reason} [${l.window}]`)).toEqual([
      'warn Key month-over: at its money budget: spent 100.00 of 100 EUR this month (100%; warns at 95%): the gateway refuses its calls until the month ends [this month]',
      'warn Key near-day: near its money budget: spent 4.10 of 5 EUR today (82%; warns at 80%) [today]',
      'warn Key low-warn: near its money budget: spent 3.00 of 10 EUR today (30%; warns at 30%) [today]',
    ]);
    expect(near[1].link).toEqual({ screen: 'keys', select: 'key_a' });
    expect(lines.some((l) => l.key === 'keys-budget-more')).toBe(false);
    // more keys with a budget than the page read: the board says it did not judge them all
    const more = triage({
      ...healthy(),
      keys: ok({
        ...page([{ ...key('key_a', 'near-day'), budget: budget(5, null), spend: spend(4.1, 4.1) }]),
        has_more: true,
      }),
    }).find((l) => l.key === 'keys-budget-more');
    expect(more?.reason).toBe(
      "more than 1 active keys have a money budget: the board judged the newest 1; the keys screen's Spend column shows the others",
    );
  });

  it('names and judges a key from its usage entry, which carries its name, status and quota (a key not in any list read)', () => {
    const carried = (
      name: string,
      quota: Partial<GatewayKey['quota']> = {},
      status: GatewayKey['status'] = 'active',
    ) => ({
      key: {
        name,
        status,
        quota: { requests_per_minute: null, tokens_per_minute: null, tokens_per_day: null, ...quota },
      },
    });
    const hour = ok(
      usage([
        keyUsage('key_old', {
          ...carried('old-one'),
          rejected: 3,
          rejected_by: { ...keyUsage('x').rejected_by, expired: 3 },
        }),
        keyUsage('key_busy', { ...carried('busy', { requests_per_minute: 10 }), requests: 540 }),
        keyUsage('key_gone', { ...carried('gone', { requests_per_minute: 10 }, 'revoked'), requests: 600 }),
      ]),
    );
    const lines = byKey({
      ...healthy(),
      keys: ok(page([])),
      usage: hour,
      // a day's rejections: the same answer, as the board reads them from its own window
      rejections: hour,
      usageToday: ok(
        usage([keyUsage('key_day', { ...carried('daily', { tokens_per_day: 100 }), input_tokens: 90 })], 'day'),
      ),
    });
    expect(lines.get('key-rejections:key_old')?.what).toBe('Key old-one');
    expect(lines.get('key-quota:key_busy')).toMatchObject({
      what: 'Key busy',
      reason: 'near its quota: averaged 9 of 10 requests a minute over the last hour',
    });
    expect(lines.get('key-quota:key_day')?.reason).toBe('near its quota: used 90 of 100 tokens today (UTC)');
    // a revoked key is not near a quota
    expect(lines.has('key-quota:key_gone')).toBe(false);
  });

  it('active keys unused for 30 days, as the appliance counts them among every key, as one watch item opening the filtered keys screen', () => {
    const answer = (names: string[], total: number, total_capped = false) =>
      ok({
        data: names.map((n, i) => key(`key_${i}`, n)),
        next_cursor: null,
        has_more: total > names.length,
        total,
        total_capped,
      });
    const unused = (input: ReturnType<typeof answer>) =>
      triage({ ...healthy(), keysUnused: input }).filter((l) => l.key === 'keys-unused');
    expect(unused(answer(['old-batch', 'never-used', 'idle-w'], 5))).toEqual([
      {
        key: 'keys-unused',
        severity: 'warn',
        what: 'Gateway keys',
        reason: '5 active keys unused for 30 days: old-batch, never-used, idle-w and 2 more; revoke what nobody needs',
        count: 5,
        window: 'last 30 d',
        link: { screen: 'keys', extra: { unused: '30d' } },
      },
    ]);
    expect(unused(answer(['a', 'b', 'c'], KEY_COUNT_CAP, true))[0].reason).toBe(
      'more than 10,000 active keys unused for 30 days: a, b, c and more than 9,997 others; revoke what nobody needs',
    );
    expect(unused(answer(['lonely'], 1))[0].reason).toBe(
      '1 active key unused for 30 days: lonely; revoke what nobody needs',
    );
    // none idle: no line
    expect(triage(healthy()).some((l) => l.key === 'keys-unused')).toBe(false);
  });

  it('agents with failures in the last 24 h: count, top error code and top tool; Enter opens the journal on their failures', () => {
    const lines = byKey({
      ...healthy(),
      failuresByError: ok(
        summary('agent', 'error_code', [
          {
            key: 'hr-assistant',
            count: 7,
            sub: [
              { key: 'tool_timeout', count: 5 },
              { key: 'tool_error', count: 2 },
            ],
          },
          { key: 'sales-copilot', count: 2, sub: [{ key: 'model_unavailable', count: 2 }] },
        ]),
      ),
      failuresByTool: ok(
        summary('agent', 'tool', [
          {
            key: 'hr-assistant',
            count: 7,
            sub: [
              { key: null, count: 4 },
              { key: 'hr_lookup', count: 3 },
            ],
          },
          { key: 'sales-copilot', count: 2, sub: [] },
        ]),
      ),
    });
    expect(lines.get('agent-failures:hr-assistant')).toMatchObject({
      severity: 'warn',
      what: 'Agent hr-assistant',
      count: 7,
      window: 'last 24 h',
      // a step without a tool (null) is not a tool
      reason: '7 failed steps: top error tool_timeout (5), top tool hr_lookup (3)',
      link: { screen: 'journal', extra: { range: '24h', filters: { agent: 'hr-assistant', status: 'failed' } } },
    });
    expect(lines.get('agent-failures:sales-copilot')?.reason).toBe('2 failed steps: top error model_unavailable (2)');
    // the tool summary alone still gives the agents
    const toolOnly = byKey({
      ...healthy(),
      failuresByError: { state: 'error', error: 'x' },
      failuresByTool: ok(summary('agent', 'tool', [{ key: 'a1', count: 1, sub: [{ key: 'search', count: 1 }] }])),
    });
    expect(toolOnly.get('agent-failures:a1')?.reason).toBe('1 failed step: top tool search (1)');
  });

  it('agents near a budget: tokens >= 80% of a day, or runs over a per-run limit', () => {
    const lines = byKey({
      ...healthy(),
      budgetUsage: ok(
        BudgetUsageSchema.parse({
          start_time: NOW,
          end_time: NOW,
          agents: [
            {
              agent: 'daily',
              limits: { ...limits, tokens_per_day: 10_000 },
              tokens: 9_200,
              runs: 4,
              peak_run: { tokens: 3_000, tool_calls: 2, seconds: 10 },
              runs_over: zeroOver,
            },
            {
              agent: 'long',
              limits,
              tokens: 50_000,
              runs: 9,
              peak_run: { tokens: 25_000, tool_calls: 30, seconds: 10 },
              runs_over: { tokens_per_run: 2, tool_calls_per_run: 1, seconds_per_run: 0 },
            },
            {
              agent: 'over',
              limits: { ...limits, tokens_per_day: 1_000 },
              tokens: 1_500,
              runs: 1,
              peak_run: { tokens: 1_500, tool_calls: 1, seconds: 1 },
              runs_over: zeroOver,
            },
            {
              agent: 'calm',
              limits: { ...limits, tokens_per_day: 10_000 },
              tokens: 7_000,
              runs: 2,
              peak_run: { tokens: 10, tool_calls: 1, seconds: 1 },
              runs_over: zeroOver,
            },
          ],
        } satisfies BudgetUsage),
      ),
    });
    expect(lines.get('agent-budget:daily')).toMatchObject({
      severity: 'warn',
      reason: 'near its budget: used 9,200 of 10,000 tokens a day',
      count: 9_200,
      window: 'last 24 h',
      link: { screen: 'budgets', select: 'agent:daily' },
    });
    expect(lines.get('agent-budget:long')).toMatchObject({
      reason: 'near its budget: 2 runs over 20,000 tokens a run; 1 run over 20 tool calls a run',
      count: 3,
    });
    expect(lines.get('agent-budget:over')?.severity).toBe('crit');
    expect(lines.has('agent-budget:calm')).toBe(false);
  });

  it('models missing but active or routed to; denied attempts with the top actor', () => {
    const lines = byKey({
      ...healthy(),
      models: ok(
        page<Model>([
          {
            id: 'ghost',
            name: 'Ghost 70B',
            family: 'llama',
            parameters: null,
            quantization: null,
            size_bytes: null,
            state: 'missing',
            active: false,
            price: null,
            currency: null,
          },
          {
            id: 'unused',
            name: 'Unused',
            family: 'llama',
            parameters: null,
            quantization: null,
            size_bytes: null,
            state: 'missing',
            active: false,
            price: null,
            currency: null,
          },
        ]),
      ),
      routing: ok(
        page<RoutingEntry>([
          { workload: 'summarize', model_id: 'ghost', effective_model_id: 'ghost', updated_at: null, updated_by: null },
        ]),
      ),
      denied: ok(
        summary('actor', null, [
          { key: 'mallory@corp.example', count: 4 },
          { key: 'bob@corp.example', count: 1 },
        ]),
      ),
    });
    expect(lines.get('model:ghost')).toMatchObject({
      severity: 'crit',
      reason: 'missing from the appliance, but routed to by summarize',
      link: { screen: 'models', select: 'ghost' },
    });
    expect(lines.has('model:unused')).toBe(false);
    expect(lines.get('denied')).toMatchObject({
      severity: 'warn',
      count: 5,
      window: 'last 24 h',
      reason: '5 requests refused for lack of permission (403); top actor mallory@corp.example (4)',
      link: { screen: 'audit', extra: { range: '24h', filters: { outcome: 'denied' } } },
    });
  });

  it('denied attempts count 403s and 401s apart: a 401 is an auth.refused entry per source and minute, with its count', () => {
    const refused = (source_ip: string | null, count: number, more: Record<string, unknown> = {}) => ({
      action: 'auth.refused',
      actor: { subject: 'anonymous', role: null },
      outcome: 'denied',
      status: 401,
      source_ip,
      details: { count, first_at: NOW, last_at: NOW, reasons: { unknown: count }, ...more },
    });
    // three auth.refused entries (two sources, one of them in two minutes) and four 403s
    const denied = summary('actor', 'action', [
      { key: 'anonymous', count: 3, sub: [{ key: 'auth.refused', count: 3 }] },
      { key: 'mallory@corp.example', count: 3, sub: [{ key: 'gateway.key.create', count: 3 }] },
      { key: 'bob@corp.example', count: 1, sub: [{ key: 'channel.update', count: 1 }] },
    ]);
    const authRefused = page([refused('10.0.0.9', 120), refused('10.0.0.9', 30), refused('10.0.0.7', 2)]);
    const line = byKey({ ...healthy(), denied: ok(denied), authRefused: ok(authRefused) }).get('denied');
    expect(line).toMatchObject({
      severity: 'warn',
      what: 'Denied attempts',
      reason:
        '4 requests refused for lack of permission (403); top actor mallory@corp.example (3) · ' +
        '152 requests without a valid token (401) from 2 sources',
      count: 156,
      window: 'last 24 h',
    });
    // only 401s: the anonymous actor is not a top actor, and no 403 is claimed; past the appliance's
    // cap of sources, one entry without a source says how many; more than a page: "at least"
    const only401 = byKey({
      ...healthy(),
      denied: ok(
        summary('actor', 'action', [{ key: 'anonymous', count: 2, sub: [{ key: 'auth.refused', count: 2 }] }]),
      ),
      authRefused: ok({ ...page([refused('10.0.0.9', 5), refused(null, 900, { sources: 1000 })]), has_more: true }),
    }).get('denied');
    expect(only401?.reason).toBe('at least 905 requests without a valid token (401) from 1,001 sources');
    expect(only401?.count).toBe(905);
    // neither: no line
    expect(byKey(healthy()).has('denied')).toBe(false);
  });

  it('the audit chain component of /deployment: down is the appliance refusing its trail (CRIT), degraded a signing failure (WARN)', () => {
    const down = byKey({
      ...healthy(),
      deployment: ok(
        deployment('degraded', [
          { name: 'audit-chain', status: 'down', message: 'the trail does not extend the last checkpoint (#40)' },
        ]),
      ),
    }).get('component:audit-chain');
    expect(down).toMatchObject({
      severity: 'crit',
      what: 'Audit chain',
      reason: 'refused by the appliance: the trail does not extend the last checkpoint (#40)',
      link: { screen: 'deployment' },
    });
    const degraded = byKey({
      ...healthy(),
      deployment: ok(
        deployment('degraded', [
          { name: 'audit-chain', status: 'degraded', message: 'audit checkpoints cannot be signed (EACCES)' },
        ]),
      ),
    }).get('component:audit-chain');
    expect(degraded).toMatchObject({
      severity: 'warn',
      what: 'Audit chain',
      reason: 'checkpoints not signed: audit checkpoints cannot be signed (EACCES)',
    });
  });

  it('a resource still loading or unreadable gets a line saying so; the others still give theirs', () => {
    const input: TriageInput = {
      ...healthy(),
      connectors: ok(page([connector('conn_crm', 'Cloud CRM', 'error')])),
      failuresByError: { state: 'error', error: 'The appliance cannot do this right now (SVC-ADMIN-503)' },
      budgetUsage: { state: 'loading' },
    };
    const lines = triage(input);
    expect(lines.map((l) => [l.key, l.severity])).toEqual([
      ['connector:conn_crm', 'crit'],
      ['source:failuresByError', 'unknown'],
      ['source:budgetUsage', 'unknown'],
    ]);
    expect(lines[1]).toMatchObject({
      what: 'Agent failures by error',
      reason: 'failed to load: The appliance cannot do this right now (SVC-ADMIN-503)',
      link: null,
    });
    expect(lines[2].reason).toBe('loading…');
    // nothing at all yet: a line per source, nothing claimed to be fine
    const ids = Object.keys(TRIAGE_SOURCES) as TriageSource[];
    const none = triage(Object.fromEntries(ids.map((id) => [id, { state: 'loading' }])) as TriageInput);
    expect(none.map((l) => l.key)).toEqual(ids.map((id) => `source:${id}`));
    expect(none.some((l) => l.key === 'all-clear')).toBe(false);
    // the last answer of a source whose latest poll failed is used, and the line says so
    const stale = byKey({
      ...healthy(),
      deployment: { state: 'ok', data: deployment('degraded'), staleError: 'timed out' },
    });
    expect(stale.get('deployment')?.what).toBe('Deployment degraded');
    expect(stale.get('source:deployment')?.reason).toMatch(/failed to refresh.*timed out/);
  });

  it('answers of another shape give no line and do not throw', () => {
    const odd: TriageInput = Object.fromEntries(
      (Object.keys(TRIAGE_SOURCES) as TriageSource[]).map((id) => [
        id,
        ok({ data: [null, 1, 'x', { groups: 5 }], groups: [null], agents: 'no', components: [null] }),
      ]),
    );
    expect(() => triage(odd)).not.toThrow();
    expect(() =>
      triage(Object.fromEntries((Object.keys(TRIAGE_SOURCES) as TriageSource[]).map((id) => [id, ok(42)]))),
    ).not.toThrow();
  });
});

describe("the overview's chain check", () => {
  it('checks an audit page once while the store keeps that answer, not at every frame', async () => {
    const { chainedTrail } = await import('../helpers/audit-chain.js');
    const { chainOf } = await import('../../src/dashboard/triage/audit-chain-state.js');
    const { loadChainCheck, chainCheckSettled } = await import('../../src/dashboard/audit-trail/audit-chain.js');
    loadChainCheck();
    await chainCheckSettled();
    const answer = page(chainedTrail(50).reverse());
    const first = chainOf(answer, undefined);
    expect(first?.ok).toBe(true);
    // the same answer object, drawn again: the remembered result, not a new check of 50 hashes
    expect(chainOf(answer, undefined)).toBe(first);
    // a new answer (a poll that brought a change) is checked afresh
    expect(chainOf(page(chainedTrail(50).reverse()), undefined)).not.toBe(first);
  });
});
