import type { Db } from '../db/sqlite-driver.js';
import { costNanos, type GatewayKey, type ModelPrice, type Quota } from '../../contract/index.js';
import { ApiError } from '../errors.js';
import {
  createGatewayKey,
  allGatewayKeys,
  revokeGatewayKey,
  rotateGatewayKey,
  setGatewayKeyExpiry,
  touchGatewayKey,
} from '../gateway/keys.js';
import { iso } from '../ids.js';
import { recordRefusedWorkload, recordUsage } from '../gateway/metering.js';
import { addSpendAt, spendRowOf, type SpendCounts, type SpendRow } from '../gateway/spend.js';
import { activityAt, DAY, MINUTE } from './activity.js';
import type { Rng } from './prng.js';

interface DemoKeySpec {
  name: string;
  created_by: string;
  /** days before now */
  createdDaysAgo: number;
  revokedDaysAgo?: number;
  quota: Partial<Quota>;
  /** requests per 15 minutes at full office activity */
  load: number;
  /** average input / output tokens per request */
  tokens: [number, number];
  /** the workloads it calls and the share of its calls each takes (adding up to 1) */
  workloads: Record<string, number>;
  /** share of its calls to a workload the appliance does not have (a client not yet updated) */
  unknownWorkload?: number;
  /** the workload name those calls ask for */
  strayWorkload?: string;
  /** hours after revocation its clients keep calling, refused */
  callsAfterRevokeHours?: number;
  /** rotated this many days ago, its old secret working for graceHours more */
  rotatedDaysAgo?: number;
  graceHours?: number;
  /** an expiry this many days ahead, set expirySetDaysAgo days ago */
  expiresInDays?: number;
  expirySetDaysAgo?: number;
}

const q = (
  requests_per_minute: number | null,
  tokens_per_minute: number | null,
  tokens_per_day: number | null,
): Quota => ({ requests_per_minute, tokens_per_minute, tokens_per_day });

/**
 * Daily token quotas sit above a usual weekday's use (about 40 slots at full activity), so only the
 * sandbox, the contract batch and the proof of concept run out of tokens, on their busier days.
 */
const DEMO_KEYS: DemoKeySpec[] = [
  {
    name: 'hr-assistant-prod',
    workloads: { chat: 0.8, summarize: 0.2 },
    created_by: 'alice.martin@northwind.example',
    createdDaysAgo: 84,
    quota: q(120, 60_000, 4_000_000),
    load: 60,
    tokens: [900, 260],
    // rotated on the quarterly schedule, the old secret kept for a day
    rotatedDaysAgo: 11,
    graceHours: 24,
  },
  {
    name: 'finance-analyst-prod',
    workloads: { extract: 0.6, chat: 0.4 },
    created_by: 'dmitri.ivanov@northwind.example',
    createdDaysAgo: 71,
    quota: q(60, 40_000, 3_000_000),
    load: 30,
    tokens: [1600, 420],
  },
  {
    name: 'it-helpdesk-bot',
    workloads: { chat: 0.7, classify: 0.3 },
    created_by: 'ben.okafor@northwind.example',
    createdDaysAgo: 120,
    quota: q(120, null, null),
    load: 75,
    tokens: [700, 220],
  },
  {
    name: 'sales-copilot-teams',
    workloads: { chat: 0.6, summarize: 0.4 },
    created_by: 'erin.walsh@northwind.example',
    createdDaysAgo: 45,
    // a pilot licensed until next week: the overview warns of its expiry
    expiresInDays: 5,
    expirySetDaysAgo: 30,
    quota: q(90, 50_000, 4_000_000),
    load: 45,
    tokens: [1100, 350],
  },
  {
    name: 'intranet-search',
    workloads: { embed: 1 },
    created_by: 'svc-terraform',
    createdDaysAgo: 150,
    quota: q(300, null, 5_000_000),
    load: 110,
    tokens: [180, 0],
    unknownWorkload: 0.02,
    strayWorkload: 'search-v1',
  },
  {
    name: 'code-assist-ide',
    workloads: { 'code-assist': 1 },
    created_by: 'ben.okafor@northwind.example',
    createdDaysAgo: 33,
    quota: q(60, 100_000, null),
    load: 25,
    tokens: [2200, 480],
  },
  {
    name: 'contract-extractor-batch',
    workloads: { extract: 1 },
    created_by: 'dmitri.ivanov@northwind.example',
    createdDaysAgo: 12,
    quota: q(30, 20_000, 4_000_000),
    load: 28,
    tokens: [3200, 600],
  },
  {
    name: 'data-science-sandbox',
    workloads: { chat: 0.5, 'code-assist': 0.5 },
    created_by: 'alice.martin@northwind.example',
    createdDaysAgo: 5,
    quota: q(10, 10_000, 800_000),
    load: 14,
    tokens: [1400, 500],
  },
  {
    name: 'legacy-chat-widget',
    workloads: { chat: 1 },
    created_by: 'ben.okafor@northwind.example',
    createdDaysAgo: 210,
    revokedDaysAgo: 20,
    quota: q(60, null, null),
    load: 20,
    tokens: [600, 240],
    callsAfterRevokeHours: 72,
  },
  {
    name: 'contractor-poc-acme',
    workloads: { summarize: 0.5, extract: 0.5 },
    created_by: 'erin.walsh@northwind.example',
    createdDaysAgo: 40,
    revokedDaysAgo: 8,
    quota: q(20, 15_000, 500_000),
    load: 9,
    tokens: [1000, 300],
  },
  {
    name: 'hr-assistant-staging',
    workloads: { chat: 1 },
    created_by: 'carla.mendes@northwind.example',
    createdDaysAgo: 60,
    revokedDaysAgo: 2,
    quota: q(30, 20_000, 300_000),
    load: 6,
    tokens: [900, 260],
    callsAfterRevokeHours: 40,
  },
  {
    name: 'mobile-app-beta',
    workloads: { chat: 1 },
    created_by: 'svc-terraform',
    createdDaysAgo: 95,
    revokedDaysAgo: 26,
    quota: q(45, 30_000, 600_000),
    load: 12,
    tokens: [500, 180],
    unknownWorkload: 0.05,
    strayWorkload: 'chat-beta',
  },
];

export interface SeededKey {
  id: string;
  name: string;
  created_by: string;
  created_ms: number;
  revoked_ms: number | null;
  quota: Quota;
  /** a rotation the audit trail tells of, as it was made */
  rotation?: { at_ms: number; previous_prefix: string; new_prefix: string; grace_seconds: number; valid_until: string };
  /** an expiry the audit trail tells of */
  expiry?: { at_ms: number; expires_at: string };
  /** a money budget the audit trail tells of (seed-budgets.ts); `to` null: refused, the appliance has no pricing */
  budget?: { at_ms: number; to: GatewayKey['budget'] | null };
}

const SLOT_MINUTES = 15;

/** The model a workload's calls go to and its price (null: unpriced), as the front door charges them. */
export type DemoCharges = (workload: string) => { model_id: string | null; price: ModelPrice | null };

/**
 * The seeded spend, as the front door keeps it: each minute written as it comes, its hours and days
 * summed here and written once by flush() (a month of 15-minute slots would otherwise update each
 * day's row 96 times).
 */
class SpendTally {
  private readonly sums = new Map<string, { grain: 'hour' | 'day'; keyId: string; start: number; row: SpendRow }>();
  constructor(private readonly db: Db) {}

  add(keyId: string, minute: number, s: SpendCounts): void {
    const row = spendRowOf(s);
    addSpendAt(this.db, 'minute', keyId, minute, row);
    for (const [grain, start] of [
      ['hour', minute - (minute % 60)],
      ['day', minute - (minute % 1440)],
    ] as const) {
      const k = `${grain}|${keyId}|${start}|${row.model_id}|${row.workload}`;
      const t = this.sums.get(k);
      if (!t) {
        this.sums.set(k, { grain, keyId, start, row: { ...row } });
        continue;
      }
      t.row.requests += row.requests;
      t.row.input_tokens += row.input_tokens;
      t.row.output_tokens += row.output_tokens;
      t.row.cost_nanos += row.cost_nanos;
      t.row.unpriced_requests += row.unpriced_requests;
    }
  }

  flush(): void {
    for (const t of this.sums.values()) addSpendAt(this.db, t.grain, t.keyId, t.start, t.row);
    this.sums.clear();
  }
}

/** Where a slot's spend goes: its workloads' models and prices, and the tally that writes it. */
interface DemoSpend {
  charges: DemoCharges;
  tally: SpendTally;
}

/** Runs `seed` with a tally of its spend, written whole when it returns. */
function withSpend<T>(db: Db, charges: DemoCharges, seed: (spend: DemoSpend) => T): T {
  const tally = new SpendTally(db);
  const out = seed({ charges, tally });
  tally.flush();
  return out;
}

/**
 * A slot's served calls as spend, split between the key's workloads by their shares (the last one
 * takes what rounding leaves), each charged at its model's price, as the front door would have.
 */
function recordSlotSpend(
  spend: DemoSpend,
  keyId: string,
  minute: number,
  workloads: Record<string, number>,
  served: { requests: number; input_tokens: number; output_tokens: number },
): void {
  const parts = Object.entries(workloads);
  let left = { ...served };
  parts.forEach(([workload, share], i) => {
    const last = i === parts.length - 1;
    const requests = last ? left.requests : Math.min(left.requests, Math.round(served.requests * share));
    if (requests <= 0) return;
    const part = (n: number, rest: number) =>
      last ? rest : Math.min(rest, Math.round((n * requests) / served.requests));
    const tokens = {
      input_tokens: part(served.input_tokens, left.input_tokens),
      output_tokens: part(served.output_tokens, left.output_tokens),
    };
    left = {
      requests: left.requests - requests,
      input_tokens: left.input_tokens - tokens.input_tokens,
      output_tokens: left.output_tokens - tokens.output_tokens,
    };
    const { model_id, price } = spend.charges(workload);
    spend.tally.add(keyId, minute, {
      model_id,
      workload,
      requests,
      ...tokens,
      cost_nanos: price === null ? null : costNanos(price, tokens),
    });
  });
}

/**
 * Creates the demo's gateway keys through the gateway's own key function (the secrets it returns
 * are dropped on the spot; only hashes are stored) and writes their usage history in 15-minute
 * slots, following the office-hours curve, until revocation or now. Refusals follow the quota:
 * bursts meet the per-minute limits, a day's tokens past tokens_per_day are refused until UTC
 * midnight, some clients call a workload the appliance lacks, and some keep calling after their
 * key is revoked.
 */
export function seedKeysAndUsage(
  db: Db,
  rng: Rng,
  now: number,
  historyStart: number,
  charges: DemoCharges,
): { keys: SeededKey[]; usageRows: number } {
  return withSpend(db, charges, (spend) => seedKeys(db, rng, now, historyStart, spend));
}

function seedKeys(
  db: Db,
  rng: Rng,
  now: number,
  historyStart: number,
  spend: DemoSpend,
): { keys: SeededKey[]; usageRows: number } {
  const keys: SeededKey[] = [];
  let usageRows = 0;
  for (const spec of DEMO_KEYS) {
    const created_ms = now - spec.createdDaysAgo * DAY - rng.int(0, 8 * 60) * MINUTE;
    let key;
    try {
      ({ key } = createGatewayKey(db, {
        name: spec.name,
        quota: spec.quota,
        created_by: spec.created_by,
        created_at_ms: created_ms,
      }));
    } catch (err) {
      // an operator's own active key already has this name: leave it alone
      if (err instanceof ApiError && err.status === 409) continue;
      throw err;
    }
    const revoked_ms =
      spec.revokedDaysAgo === undefined ? null : now - spec.revokedDaysAgo * DAY + rng.int(0, 6 * 60) * MINUTE;
    const seeded: SeededKey = {
      id: key.id,
      name: key.name,
      created_by: spec.created_by,
      created_ms,
      revoked_ms,
      quota: key.quota,
    };
    if (spec.expiresInDays !== undefined) {
      // fixed times of day, not from rng: the seeded history that follows stays as it was
      const at_ms = now - (spec.expirySetDaysAgo ?? 0) * DAY + 2 * 60 * MINUTE;
      const { key: after } = setGatewayKeyExpiry(db, key.id, iso(now + spec.expiresInDays * DAY), now);
      seeded.expiry = { at_ms, expires_at: after.expires_at! };
    }
    if (spec.rotatedDaysAgo !== undefined) {
      const at_ms = now - spec.rotatedDaysAgo * DAY + 3 * 60 * MINUTE;
      const grace_seconds = (spec.graceHours ?? 24) * 3600;
      // the new secret is dropped on the spot, like the created one
      const r = rotateGatewayKey(db, key.id, grace_seconds, at_ms);
      seeded.rotation = {
        at_ms,
        previous_prefix: r.previousPrefix,
        new_prefix: r.key.prefix,
        grace_seconds,
        valid_until: r.previousValidUntil,
      };
    }
    keys.push(seeded);

    const u = rng.fork();
    usageRows += seedKeyUsage(db, u, spec, seeded, historyStart, now, spend);
    if (revoked_ms !== null) {
      revokeGatewayKey(db, key.id, revoked_ms);
      usageRows += seedCallsAfterRevocation(db, u, spec, key.id, revoked_ms, now);
    }
  }
  return { keys, usageRows };
}

/** A key as the usage history needs it. */
type UsageKey = Pick<SeededKey, 'id' | 'quota' | 'created_ms' | 'revoked_ms'>;

/**
 * One key's usage in 15-minute slots from historyStart (or its creation) until its revocation or
 * now; returns the rows written. Slots start on the quarter hour, so a later call from where an
 * earlier one stopped (the demo brought up to date) never writes a slot twice.
 */
function seedKeyUsage(
  db: Db,
  u: Rng,
  spec: DemoKeySpec,
  key: UsageKey,
  historyStart: number,
  now: number,
  spend: DemoSpend,
): number {
  let usageRows = 0;
  const { created_ms, revoked_ms } = key;
  const slotMs = SLOT_MINUTES * MINUTE;
  const from = Math.ceil(Math.max(created_ms, historyStart) / slotMs) * slotMs;
  const until = Math.min(revoked_ms ?? now, now - MINUTE);
  const { requests_per_minute: rpm, tokens_per_minute: tpm, tokens_per_day: tpd } = key.quota;
  let last = 0;
  let day = { index: -1, tokens: 0 };
  for (let t = from; t < until; t += slotMs) {
    const expected = spec.load * activityAt(t) * (0.6 + 0.8 * u.next());
    const requests = Math.floor(expected + u.next());
    if (requests <= 0) continue;
    // Keys with a tight per-minute quota get throttled when a burst lands in one minute.
    const burst = requests > (rpm ?? Infinity) * 2 || (requests > (rpm ?? Infinity) / 2 && u.chance(0.15));
    const throttled = burst ? u.int(1, Math.max(1, Math.ceil(requests / 4))) : 0;
    const strayed = Math.min(requests - throttled, Math.floor(requests * (spec.unknownWorkload ?? 0) + u.next()));
    let served = requests - throttled - strayed;
    const perCall = [spec.tokens[0] * (0.7 + 0.6 * u.next()), spec.tokens[1] * (0.7 + 0.6 * u.next())];
    if (day.index !== Math.floor(t / DAY)) day = { index: Math.floor(t / DAY), tokens: 0 };
    const fit = tpd === null ? served : Math.max(0, Math.floor((tpd - day.tokens) / (perCall[0] + perCall[1] || 1)));
    const overDay = Math.max(0, served - fit);
    served -= overDay;
    const input = Math.round(served * perCall[0]);
    const output = Math.round(served * perCall[1]);
    day.tokens += input + output;
    // a burst meets the token limit first when the key has one and the calls are large
    const burstCause = tpm !== null && (rpm === null || u.chance(0.35)) ? 'tokens_per_minute' : 'requests_per_minute';
    recordUsage(db, key.id, Math.floor(t / MINUTE), {
      requests: served,
      input_tokens: input,
      output_tokens: output,
      rejected_by: { [burstCause]: throttled, tokens_per_day: overDay, unknown_workload: strayed },
    });
    if (served > 0)
      recordSlotSpend(spend, key.id, Math.floor(t / MINUTE), spec.workloads, {
        requests: served,
        input_tokens: input,
        output_tokens: output,
      });
    if (strayed > 0)
      recordRefusedWorkload(db, key.id, Math.floor(t / MINUTE), spec.strayWorkload ?? 'summarize-v0', strayed);
    usageRows++;
    if (served > 0) last = t + u.int(0, SLOT_MINUTES - 1) * MINUTE;
  }
  if (last) touchGatewayKey(db, key.id, Math.min(last, until - MINUTE));
  return usageRows;
}

/** A client not yet told keeps calling a revoked key at its usual pace, refused, for a while. */
function seedCallsAfterRevocation(
  db: Db,
  u: Rng,
  spec: DemoKeySpec,
  keyId: string,
  revokedMs: number,
  now: number,
): number {
  if (!spec.callsAfterRevokeHours) return 0;
  let rows = 0;
  const end = Math.min(revokedMs + spec.callsAfterRevokeHours * 3600_000, now - MINUTE);
  for (let t = revokedMs + MINUTE; t < end; t += SLOT_MINUTES * MINUTE) {
    const calls = Math.floor(spec.load * activityAt(t) * (0.6 + 0.8 * u.next()) + u.next());
    if (calls <= 0) continue;
    recordUsage(db, keyId, Math.floor(t / MINUTE), { rejected_by: { revoked: calls } });
    rows++;
  }
  return rows;
}

/** The demo's keys still active on this appliance (an operator may have revoked or replaced some), by spec. */
function activeDemoKeys(db: Db): { spec: DemoKeySpec; key: UsageKey; lastUsedMs: number }[] {
  const active = allGatewayKeys(db).filter((k) => k.status === 'active');
  return DEMO_KEYS.flatMap((spec) => {
    const k = active.find((a) => a.name === spec.name && a.created_by === spec.created_by);
    if (!k) return [];
    const key = { id: k.id, quota: k.quota, created_ms: Date.parse(k.created_at), revoked_ms: null };
    return [{ spec, key, lastUsedMs: k.last_used_at ? Date.parse(k.last_used_at) : 0 }];
  });
}

/**
 * The usage of the demo's active keys from `from` (where an earlier seeding stopped) until now:
 * a demo copied from its prebuilt database is brought up to date. Returns the rows written.
 */
export function seedUsageSince(db: Db, rng: Rng, from: number, now: number, charges: DemoCharges): number {
  return withSpend(db, charges, (spend) => {
    let rows = 0;
    for (const { spec, key } of activeDemoKeys(db)) rows += seedKeyUsage(db, rng.fork(), spec, key, from, now, spend);
    return rows;
  });
}

/** The keys whose clients overrun their per-minute quotas in the last hour, and how. */
const RECENT_OVERRUNS: { name: string; cause: 'requests_per_minute' | 'tokens_per_minute'; at: number }[] = [
  { name: 'data-science-sandbox', cause: 'requests_per_minute', at: 0.35 },
  { name: 'contract-extractor-batch', cause: 'tokens_per_minute', at: 0.75 },
];

/**
 * Quota rejections in the last hour whatever the time of day (the office-hours curve alone leaves
 * nights and weekends without any): a burst over a per-minute quota by two keys, inside
 * [from, now) and at most 45 minutes before now, so that a fresh demo's overview shows them at
 * once. Returns the rows written.
 */
export function seedRecentOverruns(db: Db, rng: Rng, from: number, now: number, charges: DemoCharges): number {
  const start = Math.max(from, now - 45 * MINUTE);
  if (now - start < MINUTE) return 0;
  const keys = activeDemoKeys(db);
  const tally = new SpendTally(db);
  let rows = 0;
  for (const o of RECENT_OVERRUNS) {
    const k = keys.find((x) => x.spec.name === o.name);
    if (!k) continue;
    const t = start + Math.floor((now - start) * o.at);
    const minute = Math.floor(t / MINUTE);
    // a slot of the history may hold this minute already: the burst adds to it, no new row
    const added = !db.prepare('SELECT 1 FROM usage_minutes WHERE key_id = ? AND minute = ?').get(k.key.id, minute);
    const served = rng.int(4, 8);
    const [input, output] = k.spec.tokens;
    recordUsage(db, k.key.id, minute, {
      requests: served,
      input_tokens: served * input,
      output_tokens: served * output,
      rejected_by: { [o.cause]: rng.int(2, 6) },
    });
    recordSlotSpend({ charges, tally }, k.key.id, minute, k.spec.workloads, {
      requests: served,
      input_tokens: served * input,
      output_tokens: served * output,
    });
    if (t > k.lastUsedMs) touchGatewayKey(db, k.key.id, t);
    if (added) rows++;
  }
  tally.flush();
  return rows;
}
