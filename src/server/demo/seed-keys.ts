import type { Db } from '../db/sqlite-driver.js';
import type { Quota } from '../../contract/index.js';
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
    created_by: 'dmitri.ivanov@northwind.example',
    createdDaysAgo: 71,
    quota: q(60, 40_000, 3_000_000),
    load: 30,
    tokens: [1600, 420],
  },
  {
    name: 'it-helpdesk-bot',
    created_by: 'ben.okafor@northwind.example',
    createdDaysAgo: 120,
    quota: q(120, null, null),
    load: 75,
    tokens: [700, 220],
  },
  {
    name: 'sales-copilot-teams',
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
    created_by: 'ben.okafor@northwind.example',
    createdDaysAgo: 33,
    quota: q(60, 100_000, null),
    load: 25,
    tokens: [2200, 480],
  },
  {
    name: 'contract-extractor-batch',
    created_by: 'dmitri.ivanov@northwind.example',
    createdDaysAgo: 12,
    quota: q(30, 20_000, 4_000_000),
    load: 28,
    tokens: [3200, 600],
  },
  {
    name: 'data-science-sandbox',
    created_by: 'alice.martin@northwind.example',
    createdDaysAgo: 5,
    quota: q(10, 10_000, 800_000),
    load: 14,
    tokens: [1400, 500],
  },
  {
    name: 'legacy-chat-widget',
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
    created_by: 'erin.walsh@northwind.example',
    createdDaysAgo: 40,
    revokedDaysAgo: 8,
    quota: q(20, 15_000, 500_000),
    load: 9,
    tokens: [1000, 300],
  },
  {
    name: 'hr-assistant-staging',
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
}

const SLOT_MINUTES = 15;

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
    usageRows += seedKeyUsage(db, u, spec, seeded, historyStart, now);
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
function seedKeyUsage(db: Db, u: Rng, spec: DemoKeySpec, key: UsageKey, historyStart: number, now: number): number {
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
export function seedUsageSince(db: Db, rng: Rng, from: number, now: number): number {
  let rows = 0;
  for (const { spec, key } of activeDemoKeys(db)) rows += seedKeyUsage(db, rng.fork(), spec, key, from, now);
  return rows;
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
export function seedRecentOverruns(db: Db, rng: Rng, from: number, now: number): number {
  const start = Math.max(from, now - 45 * MINUTE);
  if (now - start < MINUTE) return 0;
  const keys = activeDemoKeys(db);
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
    if (t > k.lastUsedMs) touchGatewayKey(db, k.key.id, t);
    if (added) rows++;
  }
  return rows;
}
