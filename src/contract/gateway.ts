import * as z from 'zod';
import type { AreaRoutes } from './route-meta.js';
import { REJECTION_CAUSES, type RejectionCause } from './rejection-causes.js';
import { DEFAULT_GRACE_SECONDS, MAX_GRACE_SECONDS } from './key-rotation.js';
import { DEFAULT_BUDGET_WARN_PERCENT, MAX_BUDGET, MONEY_DECIMALS } from './money.js';
import { DisplayName, Limit, Timestamp, endAfterStart, END_AFTER_START, page, PageQuery } from './common.js';

export const Quota = z.strictObject({
  requests_per_minute: Limit,
  tokens_per_minute: Limit,
  tokens_per_day: Limit,
});
export type Quota = z.infer<typeof Quota>;
export const UNLIMITED: Quota = { requests_per_minute: null, tokens_per_minute: null, tokens_per_day: null };

export const KeyStatus = z.enum(['active', 'revoked']);

const BudgetAmount = z
  .number()
  .min(0)
  .max(MAX_BUDGET)
  .nullable()
  .meta({
    description: `units of the appliance's currency (read to ${MONEY_DECIMALS} decimal places); null: no budget for the window`,
  });
/**
 * A key's money budgets (issue 41 §5), in the appliance's currency, per UTC day and per UTC month: a
 * call that would take the key's spend in a window past its budget is refused (429, cause `budget`,
 * Retry-After at the window's end). `warn_percent` is the soft share the dashboard warns at.
 */
export const KeyBudget = z.object({
  per_day: BudgetAmount,
  per_month: BudgetAmount,
  warn_percent: z.number().int().min(1).max(100),
});
export type KeyBudget = z.infer<typeof KeyBudget>;
/** What a key spent in the current UTC day and month, in the appliance's currency. */
export const KeySpend = z.object({
  currency: z.string(),
  today: z.number(),
  this_month: z.number(),
});
export type KeySpend = z.infer<typeof KeySpend>;
/**
 * PUT replaces both budgets (null clears one); warn_percent left out is the default. Needs the
 * appliance's pricing (its currency), else 409.
 */
export const SetKeyBudget = z
  .strictObject({
    per_day: BudgetAmount,
    per_month: BudgetAmount,
    warn_percent: KeyBudget.shape.warn_percent.optional().meta({
      description: `the share of a budget the dashboard warns at, 1 to 100; default ${DEFAULT_BUDGET_WARN_PERCENT}`,
    }),
  })
  .meta({ description: "a key's money budgets per UTC day and month, in the appliance's currency" });
export type SetKeyBudget = z.input<typeof SetKeyBudget>;

export const GatewayKey = z.object({
  id: z.string(),
  name: z.string(),
  status: KeyStatus,
  prefix: z.string(),
  created_at: Timestamp,
  created_by: z.string(),
  revoked_at: Timestamp.nullable(),
  last_used_at: Timestamp.nullable(),
  quota: Quota,
  /** when the quota was last set to other values (its creation until then); null: not said by this appliance */
  quota_changed_at: Timestamp.nullable(),
  /**
   * calls refused since the quota changed, every cause: counted from the first whole minute at or
   * after quota_changed_at, as usage is metered per minute (a refusal earlier in the minute of the
   * change was made under the old quota); for a key never changed, from its creation's minute.
   * Null: not counted by this appliance.
   */
  rejected_since_quota_change: z.number().int().nullable(),
  /** when the gateway starts refusing the key (401, cause `expired`); null: it does not expire */
  expires_at: Timestamp.nullable(),
  /** when the key's secret was last replaced (rotateKey); null: never rotated */
  rotated_at: Timestamp.nullable(),
  /** the prefix of the secret the last rotation replaced; null: never rotated */
  previous_prefix: z.string().nullable(),
  /**
   * until when the replaced secret is still accepted (the rotation's grace): after it, or once a
   * later rotation ends the grace, it is refused (401, cause `rotated`); null: never rotated
   */
  previous_valid_until: Timestamp.nullable(),
  /** the key's money budgets; both null: none; null: not said by this appliance (one without budgets) */
  budget: KeyBudget.nullable(),
  /** what the key spent today and this month (UTC); null when the appliance has no pricing */
  spend: KeySpend.nullable(),
});
export type GatewayKey = z.infer<typeof GatewayKey>;
/** How far the keys list counts (`count=true`): past it, `total_capped` says there are more. */
export const KEY_COUNT_CAP = 10_000;
export const GatewayKeyList = page(GatewayKey).extend({
  /**
   * with count=true: how many keys pass the filters over every page, counted up to KEY_COUNT_CAP
   * (an exact count of a million keys would read a million index entries on every poll)
   */
  total: z.number().int().min(0).optional(),
  /** with count=true: true when more keys than `total` pass the filters */
  total_capped: z.boolean().optional(),
});

/** The longest span, in days, the idleness and expiry filters take (ten years). */
export const MAX_FILTER_DAYS = 3650;
const FILTER_DAYS = z.coerce.number().int().min(1).max(MAX_FILTER_DAYS);

/**
 * The keys list's filters, each answered from an index, so that a page costs the same with a
 * million keys as with ten; they combine. The order follows the filters, each an index's order:
 * with `name`, by name (letter case aside); else with `expires_within_days`, soonest expiry first;
 * else with `unused_days`, longest unused first; else newest first.
 */
export const KeyListQuery = PageQuery.extend({
  /** keys whose name starts with this text, ASCII letter case aside */
  name: z.string().min(1).max(64).optional(),
  status: KeyStatus.optional(),
  /** the one key of that id (when it passes the other filters): how a client reads a key anew */
  id: z.string().min(1).max(100).optional(),
  unused_days: FILTER_DAYS.optional().meta({
    description:
      'active keys not used for at least this many days: their last call (passed or refused by a quota or budget), or their creation when never used, is that long ago (to the minute)',
  }),
  never_used: z
    .enum(['true'])
    .optional()
    .meta({ description: 'true: active keys the gateway has never metered a call for' }),
  expires_within_days: FILTER_DAYS.optional().meta({
    description: 'active keys that have not expired yet and expire within this many days',
  }),
  has_budget: z
    .enum(['true'])
    .optional()
    .meta({ description: 'true: keys with a money budget per day or per month (both may be set)' }),
  count: z
    .enum(['true'])
    .optional()
    .meta({
      description: `true: the answer also says how many keys pass the filters (total), counted up to ${KEY_COUNT_CAP}`,
    }),
});
export type KeyListQuery = z.infer<typeof KeyListQuery>;

/**
 * A key's expiry as a request sets it: RFC 3339 with an offset or Z (kept in UTC), in the future;
 * null clears it.
 */
export const ExpiryTime = z.iso.datetime({ offset: true }).meta({
  description: 'RFC 3339 time, in the future (stored in UTC); null: the key does not expire',
});
export const CreateKey = z.strictObject({
  name: DisplayName,
  quota: Quota.partial().optional(),
  expires_at: ExpiryTime.nullable().optional(),
  budget: SetKeyBudget.optional(),
});
export type CreateKey = z.infer<typeof CreateKey>;
/** The only response that ever carries the secret. */
export const CreatedKey = GatewayKey.extend({ secret: z.string() });
export type CreatedKey = z.infer<typeof CreatedKey>;

export const KeyParams = z.strictObject({ id: z.string().min(1).max(100) });
export const SetExpiry = z.strictObject({ expires_at: ExpiryTime.nullable() });
export type SetExpiry = z.infer<typeof SetExpiry>;

export { DEFAULT_GRACE_SECONDS, MAX_GRACE_SECONDS };
export const RotateKey = z
  .strictObject({
    // the default is the server's (DEFAULT_GRACE_SECONDS), said in words: a zod default would make the
    // field required in a generated client's type
    grace_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRACE_SECONDS)
      .optional()
      .meta({
        description: `how long the replaced secret keeps working, in seconds; 0 ends it at once; default ${DEFAULT_GRACE_SECONDS} (a day)`,
      }),
  })
  .optional();
export type RotateKey = z.input<typeof RotateKey>;

/** PUT replaces the whole quota; each value is a whole number >= 0 or null (unlimited). */
export const SetQuota = Quota.meta({ description: 'the whole quota a PUT sets' });

export const UsageBucketSize = z.enum(['minute', 'hour', 'day']);
export type UsageBucketSize = z.infer<typeof UsageBucketSize>;
/** The longest range each bucket size may cover: minutes are for watching the last hours, not a month. */
export const USAGE_MAX_RANGE_HOURS: Record<UsageBucketSize, number> = { minute: 24, hour: 1000, day: 24_000 };
export const UsageQuery = z
  .strictObject({
    start_time: Timestamp.optional(),
    end_time: Timestamp.optional(),
    key_id: z.string().min(1).max(100).optional(),
    bucket: UsageBucketSize.default('hour'),
  })
  .refine(endAfterStart, END_AFTER_START);
export const UsageBucket = z.object({
  start_time: Timestamp,
  requests: z.number().int(),
  /** calls refused in the bucket, every cause (null: not counted by this appliance) */
  rejected: z.number().int().nullable(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  /** what the bucket's priced calls cost, in the answer's `currency` */
  cost: z.number(),
  /** the bucket's calls whose cost is not known: to an unpriced model, or metered before costs were kept */
  unpriced_requests: z.number().int(),
});
export { REJECTION_CAUSES, type RejectionCause };
export const RejectedBy = z.object(
  Object.fromEntries(REJECTION_CAUSES.map((c) => [c, z.number().int()])) as Record<RejectionCause, z.ZodNumber>,
);
export type RejectedBy = z.infer<typeof RejectedBy>;
/**
 * The key a usage entry counts, as it is now: its name, status and quota, so that a client names and
 * judges every key with traffic in the range without reading the keys list (of maybe a million).
 */
export const UsageKey = GatewayKey.pick({ name: true, status: true, quota: true }).extend({
  /** as on the key (added later: an appliance that predates it leaves it out) */
  quota_changed_at: GatewayKey.shape.quota_changed_at.optional(),
  /**
   * as on the key, counted only for a key with refusals in the range whose quota was changed after its
   * creation (null for the others), so that a client can say whether the change stopped them; left out
   * by an appliance that predates it
   */
  rejected_since_quota_change: GatewayKey.shape.rejected_since_quota_change.optional(),
});
export type UsageKey = z.infer<typeof UsageKey>;
export const KeyUsage = z.object({
  key_id: z.string(),
  /** the key as it is now; null: no key of that id is stored */
  key: UsageKey.nullable(),
  requests: z.number().int(),
  rejected: z.number().int(),
  /** `rejected` split by cause; the causes add up to `rejected` */
  rejected_by: RejectedBy,
  /**
   * the workload names asked for that the appliance does not have (the unknown_workload
   * rejections), most refused first, at most MAX_REJECTED_WORKLOADS of them
   */
  rejected_workloads: z.array(z.object({ workload: z.string(), rejected: z.number().int() })),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  /** what the key's priced calls cost in the range, in the answer's `currency` (unpriced ones are not in it) */
  cost: z.number(),
  /** the key's calls whose cost is not known: to an unpriced model, or metered before costs were kept */
  unpriced_requests: z.number().int(),
  buckets: z.array(UsageBucket),
});
export const MAX_REJECTED_WORKLOADS = 20;
export type KeyUsage = z.infer<typeof KeyUsage>;
export const Usage = z.object({
  start_time: Timestamp,
  end_time: Timestamp,
  bucket: UsageBucketSize,
  /** the currency of every `cost` (ISO 4217); null: no pricing is configured, every call is unpriced */
  currency: z.string().nullable(),
  data: z.array(KeyUsage),
});
export type Usage = z.infer<typeof Usage>;

export const SpendGroupBy = z.enum(['model', 'workload', 'key']);
export type SpendGroupBy = z.infer<typeof SpendGroupBy>;
/** Cost summaries: the same range rules as usage (USAGE_MAX_RANGE_HOURS), by day unless asked otherwise. */
export const SpendQuery = z
  .strictObject({
    start_time: Timestamp.optional(),
    end_time: Timestamp.optional(),
    bucket: UsageBucketSize.default('day'),
    group_by: SpendGroupBy.default('model'),
    key_id: z.string().min(1).max(100).optional(),
    ...PageQuery.shape,
  })
  .refine(endAfterStart, END_AFTER_START);
export const SpendBucket = z.object({
  start_time: Timestamp,
  requests: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  /** in the answer's `currency` */
  cost: z.number(),
  unpriced_requests: z.number().int(),
});
export const SpendGroup = z.object({
  /** the model id, workload or key id; '' for calls no model served (group_by=model) */
  group: z.string(),
  /** the key's or the model's name; null for a workload, or one the appliance no longer knows */
  name: z.string().nullable(),
  requests: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  /** what the group's priced calls cost, in the answer's `currency`; unpriced calls are not in it */
  cost: z.number(),
  /** calls to a model without a price when they were made: their cost is not known (never taken as 0) */
  unpriced_requests: z.number().int(),
  buckets: z.array(SpendBucket),
});
export type SpendGroup = z.infer<typeof SpendGroup>;
export const Spend = z.object({
  /** the currency of every `cost` (ISO 4217); null: no pricing is configured */
  currency: z.string().nullable(),
  start_time: Timestamp,
  end_time: Timestamp,
  bucket: UsageBucketSize,
  group_by: SpendGroupBy,
  /** most costly first, then by group */
  data: z.array(SpendGroup),
  next_cursor: z.string().nullable(),
  has_more: z.boolean(),
});
export type Spend = z.infer<typeof Spend>;

/** What the gateway front door answers: it meters, it does not run models. */
export const GatewayCallResult = z.object({
  workload: z.string(),
  model_id: z.string().nullable(),
  key_id: z.string(),
  served: z.literal(false),
  metered: z.object({ requests: z.literal(1), input_tokens: z.number().int(), output_tokens: z.number().int() }),
});
export type GatewayCallResult = z.infer<typeof GatewayCallResult>;

/** The schemas of this area's routes (routes.ts joins them with route-meta.ts). */
export const gatewayRoutes = {
  listKeys: { query: KeyListQuery, response: GatewayKeyList },
  createKey: { body: CreateKey, response: CreatedKey },
  revokeKey: { params: KeyParams, response: GatewayKey },
  setQuota: { params: KeyParams, body: SetQuota, response: GatewayKey },
  setKeyExpiry: { params: KeyParams, body: SetExpiry, response: GatewayKey },
  rotateKey: { params: KeyParams, body: RotateKey, response: CreatedKey },
  setKeyBudget: { params: KeyParams, body: SetKeyBudget, response: GatewayKey },
  usage: { query: UsageQuery, response: Usage },
  spend: { query: SpendQuery, response: Spend },
} as const satisfies AreaRoutes<'gateway'>;
