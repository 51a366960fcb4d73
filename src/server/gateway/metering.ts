import type { Db } from '../db/sqlite-driver.js';
import { REJECTION_CAUSES, type Quota, type RejectedBy } from '../../contract/index.js';
import { touchGatewayKey } from './keys.js';
import { costNanos, type ModelPrice } from '../../contract/index.js';
import { recordSpend } from './spend.js';
import { checkBudget, hasBudget, keyBudgetOf } from './budget.js';
import { REJECTION_COLUMNS } from './rejection-columns.js';
import { addToRollup } from './usage-rollup.js';
import { GRAIN_MINUTES } from './time-segments.js';

const MINUTE_MS = 60_000;
const DAY_MINUTES = GRAIN_MINUTES.day;

export const epochMinute = (ms: number): number => Math.floor(ms / MINUTE_MS);

export interface UsageCounts {
  requests?: number;
  input_tokens?: number;
  output_tokens?: number;
  /** refused calls by cause */
  rejected_by?: Partial<RejectedBy>;
}

const upserts = new WeakMap<Db, ReturnType<Db['prepare']>>();
const causeColumns = REJECTION_CAUSES.map((c) => REJECTION_COLUMNS[c]);

/** Adds counts to one key's minute row (an UPSERT). Also what the demo seeder uses for history. */
export function recordUsage(db: Db, keyId: string, minute: number, counts: UsageCounts): void {
  let upsert = upserts.get(db);
  if (!upsert) {
    const columns = ['requests', 'rejected', 'input_tokens', 'output_tokens', ...causeColumns];
    upsert = db.prepare(`INSERT INTO usage_minutes (key_id, minute, ${columns.join(', ')})
    VALUES (@key_id, @minute, ${columns.map((c) => `@${c}`).join(', ')})
    ON CONFLICT (key_id, minute) DO UPDATE SET ${columns.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`);
    upserts.set(db, upsert);
  }
  const byCause = Object.fromEntries(REJECTION_CAUSES.map((c) => [REJECTION_COLUMNS[c], counts.rejected_by?.[c] ?? 0]));
  const row = {
    requests: counts.requests ?? 0,
    rejected: Object.values(byCause).reduce((a, b) => a + b, 0),
    input_tokens: counts.input_tokens ?? 0,
    output_tokens: counts.output_tokens ?? 0,
    ...byCause,
  };
  const at = Math.floor(minute);
  // the minute and its hour and day move together, or not at all
  const write = () => {
    upsert.run({ key_id: keyId, minute: at, ...row });
    addToRollup(db, keyId, at, row);
  };
  if (db.inTransaction) write();
  else db.transaction(write)();
}

/**
 * Counts a call the front door refused before metering it (a revoked or expired key, a secret a
 * rotation replaced) against the key it presented, so its owner can see what its clients still try.
 */
export const recordRejection = (db: Db, keyId: string, cause: 'revoked' | 'expired' | 'rotated', nowMs: number): void =>
  recordUsage(db, keyId, epochMinute(nowMs), { rejected_by: { [cause]: 1 } });

/** A refused workload name is kept to this many characters: enough to tell names apart. */
const WORKLOAD_NAME_KEPT = 100;
/**
 * Distinct refused names kept per key and minute; more in the same minute are counted under
 * OTHER_WORKLOADS, so a client trying random names cannot grow the table faster than the minutes.
 */
const WORKLOAD_NAMES_PER_MINUTE = 20;
export const OTHER_WORKLOADS = '(other names)';

/**
 * A call to a workload the appliance does not have: counted as the key's rejection, and under the
 * name asked for, so the usage can say which names its clients still call.
 */
export function recordUnknownWorkload(db: Db, keyId: string, workload: string, nowMs: number): void {
  const minute = epochMinute(nowMs);
  db.transaction(() => {
    recordUsage(db, keyId, minute, { rejected_by: { unknown_workload: 1 } });
    recordRefusedWorkload(db, keyId, minute, workload, 1);
  })();
}

/** Adds refusals to one refused workload name of a key's minute (also what the demo seeder uses). */
export function recordRefusedWorkload(db: Db, keyId: string, minute: number, workload: string, count: number): void {
  const name = [...workload].slice(0, WORKLOAD_NAME_KEPT).join('');
  const known = db
    .prepare('SELECT workload FROM usage_workload_rejections WHERE key_id = ? AND minute = ?')
    .pluck()
    .all(keyId, minute) as string[];
  // the last place is kept for the names beyond the others
  const kept = known.includes(name) || known.length < WORKLOAD_NAMES_PER_MINUTE - 1 ? name : OTHER_WORKLOADS;
  db.prepare(
    `INSERT INTO usage_workload_rejections (key_id, minute, workload, rejected) VALUES (?, ?, ?, ?)
    ON CONFLICT (key_id, minute, workload) DO UPDATE SET rejected = rejected + excluded.rejected`,
  ).run(keyId, minute, kept, count);
}

export type MeterOutcome =
  | { ok: true; cost_nanos: number | null }
  /** retryAfterSeconds is null for a call the quota can never let through (no Retry-After then) */
  | { ok: false; limit: keyof Quota | 'budget'; retryAfterSeconds: number | null; detail: string };

/** What a call is charged for: the workload, the model serving it, and that model's price (null: unpriced). */
export interface Charge {
  workload: string;
  model_id: string | null;
  price: ModelPrice | null;
  /** the appliance's currency, for the refusal's words */
  currency: string | null;
}

/**
 * Checks the quota and then the key's money budget against the current windows, and records the
 * call (or its refusal) with its cost, in one IMMEDIATE transaction, so that concurrent calls cannot
 * together pass a limit or a budget. Windows are fixed and UTC-aligned: the current minute, the day
 * since UTC midnight, the month since its first day. Every key is checked: there is no key or role
 * that bypasses a budget.
 */
export function meterCall(
  db: Db,
  keyId: string,
  quota: Quota,
  tokens: { input_tokens: number; output_tokens: number },
  nowMs: number,
  charge: Charge,
): MeterOutcome {
  return db
    .transaction((): MeterOutcome => {
      const minute = epochMinute(nowMs);
      const callTokens = tokens.input_tokens + tokens.output_tokens;
      const cost = charge.price === null ? null : costNanos(charge.price, tokens);
      let verdict: MeterOutcome | { ok: true } = checkQuota(db, keyId, quota, minute, callTokens, nowMs);
      if (verdict.ok) {
        const budget = keyBudgetOf(db, keyId);
        if (hasBudget(budget)) {
          const b = checkBudget(db, keyId, budget, { ...charge, costNanos: cost }, charge.currency, nowMs);
          if (!b.ok) verdict = { ok: false, limit: 'budget', retryAfterSeconds: b.retryAfterSeconds, detail: b.detail };
        }
      }
      if (verdict.ok) {
        recordUsage(db, keyId, minute, { requests: 1, ...tokens });
        recordSpend(db, keyId, minute, {
          model_id: charge.model_id,
          workload: charge.workload,
          requests: 1,
          ...tokens,
          cost_nanos: cost,
        });
        verdict = { ok: true, cost_nanos: cost };
      } else recordUsage(db, keyId, minute, { rejected_by: { [verdict.limit]: 1 } });
      touchGatewayKey(db, keyId, nowMs);
      return verdict;
    })
    .immediate();
}

function checkQuota(
  db: Db,
  keyId: string,
  quota: Quota,
  minute: number,
  callTokens: number,
  nowMs: number,
): { ok: true } | Extract<MeterOutcome, { ok: false }> {
  const toNextMinute = secondsUntil((minute + 1) * MINUTE_MS, nowMs);
  if (quota.requests_per_minute !== null || quota.tokens_per_minute !== null) {
    const row = db
      .prepare(
        'SELECT requests, input_tokens + output_tokens AS tokens FROM usage_minutes WHERE key_id = ? AND minute = ?',
      )
      .get(keyId, minute) as { requests: number; tokens: number } | undefined;
    const used = row ?? { requests: 0, tokens: 0 };
    if (quota.requests_per_minute !== null && used.requests + 1 > quota.requests_per_minute) {
      if (quota.requests_per_minute === 0)
        return {
          ok: false,
          limit: 'requests_per_minute',
          retryAfterSeconds: null,
          detail: 'the quota of 0 requests per minute lets no call through',
        };
      return {
        ok: false,
        limit: 'requests_per_minute',
        retryAfterSeconds: toNextMinute,
        detail: `quota of ${quota.requests_per_minute} requests per minute reached`,
      };
    }
    if (quota.tokens_per_minute !== null && used.tokens + callTokens > quota.tokens_per_minute) {
      return {
        ok: false,
        limit: 'tokens_per_minute',
        retryAfterSeconds: callTokens > quota.tokens_per_minute ? null : toNextMinute,
        detail: tooMany(quota.tokens_per_minute, 'minute', callTokens),
      };
    }
  }
  if (quota.tokens_per_day !== null) {
    const dayStart = minute - (minute % DAY_MINUTES);
    const used = db
      .prepare(
        'SELECT COALESCE(SUM(input_tokens + output_tokens), 0) FROM usage_minutes WHERE key_id = ? AND minute >= ? AND minute <= ?',
      )
      .pluck()
      .get(keyId, dayStart, minute) as number;
    if (used + callTokens > quota.tokens_per_day) {
      const retryAfterSeconds =
        callTokens > quota.tokens_per_day ? null : secondsUntil((dayStart + DAY_MINUTES) * MINUTE_MS, nowMs);
      return {
        ok: false,
        limit: 'tokens_per_day',
        retryAfterSeconds,
        detail: tooMany(quota.tokens_per_day, 'day', callTokens),
      };
    }
  }
  return { ok: true };
}

const secondsUntil = (atMs: number, nowMs: number) => Math.max(1, Math.ceil((atMs - nowMs) / 1000));

const tooMany = (limit: number, window: string, callTokens: number) =>
  callTokens > limit
    ? `this call alone needs ${callTokens} tokens, more than the quota of ${limit} tokens per ${window}`
    : `quota of ${limit} tokens per ${window} reached`;
