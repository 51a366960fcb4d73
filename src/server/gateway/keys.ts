import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { Db } from '../db/sqlite-driver.js';
import { decodeCursor, encodeCursor } from '../http/paging.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { iso, newId } from '../ids.js';
import { hashSecret } from '../tokens.js';
import {
  amountOfNanos,
  DEFAULT_BUDGET_WARN_PERCENT,
  nanosOfAmount,
  UNLIMITED,
  KEY_COUNT_CAP,
  type GatewayKey,
  type KeyListQuery,
  type Page,
  type Quota,
  type SetKeyBudget,
  type UsageKey,
} from '../../contract/index.js';

/** Gateway key secrets: `agk_` + 32 random bytes base64url (43 chars); only the SHA-256 is stored. */
const GATEWAY_KEY_PREFIX = 'agk_';
/** Enough of the secret to recognise a key in a list, far too little to use it (48 random bits). */
const DISPLAY_PREFIX_LENGTH = 12;

interface KeyRow {
  id: string;
  name: string;
  status: 'active' | 'revoked';
  prefix: string;
  created_at: string;
  created_by: string;
  revoked_at: string | null;
  last_used_at: string | null;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  tokens_per_day: number | null;
  quota_changed_at: string;
  rejected_since_quota_change: number;
  expires_at: string | null;
  rotated_at: string | null;
  previous_prefix: string | null;
  previous_valid_until: string | null;
  budget_per_day_nanos: number | null;
  budget_per_month_nanos: number | null;
  budget_warn_percent: number;
}

/**
 * The refusals since the quota changed come from the minute rows, from the first whole minute at
 * or after the change (its epoch minute rounded up): a refusal earlier in the minute of a change
 * was made under the old quota. A key never changed counts from its creation's minute, as it had
 * no calls before.
 */
const CHANGED_MS = "CAST(unixepoch(k.quota_changed_at, 'subsec') * 1000 AS INTEGER)";
const COUNTED_FROM = `CASE WHEN k.quota_changed_at = k.created_at THEN ${CHANGED_MS} / 60000 ELSE (${CHANGED_MS} + 59999) / 60000 END`;
// `rejected > 0` lets SQLite read the partial index of the minutes with a refusal (migration 9)
const REJECTED_SINCE_SUM = `(SELECT COALESCE(SUM(u.rejected), 0) FROM usage_minutes u WHERE u.key_id = k.id
  AND u.rejected > 0 AND u.minute >= ${COUNTED_FROM})`;
const REJECTED_SINCE = `${REJECTED_SINCE_SUM} AS rejected_since_quota_change`;
/** The newest secret a rotation replaced: the only one that can still be in its grace. */
const NEWEST_REPLACED = (column: string) =>
  `(SELECT r.${column} FROM gateway_key_replaced_secrets r WHERE r.key_id = k.id ORDER BY r.seq DESC LIMIT 1)`;
const COLUMNS = `k.id, k.name, k.status, k.prefix, k.created_at, k.created_by, k.revoked_at, k.last_used_at,
  k.requests_per_minute, k.tokens_per_minute, k.tokens_per_day, k.quota_changed_at, ${REJECTED_SINCE},
  k.expires_at, k.rotated_at, ${NEWEST_REPLACED('prefix')} AS previous_prefix,
  ${NEWEST_REPLACED('valid_until')} AS previous_valid_until,
  k.budget_per_day_nanos, k.budget_per_month_nanos, k.budget_warn_percent`;

const toKey = (r: KeyRow): GatewayKey => ({
  id: r.id,
  name: r.name,
  status: r.status,
  prefix: r.prefix,
  created_at: r.created_at,
  created_by: r.created_by,
  revoked_at: r.revoked_at,
  last_used_at: r.last_used_at,
  quota: {
    requests_per_minute: r.requests_per_minute,
    tokens_per_minute: r.tokens_per_minute,
    tokens_per_day: r.tokens_per_day,
  },
  quota_changed_at: r.quota_changed_at,
  rejected_since_quota_change: r.rejected_since_quota_change,
  expires_at: r.expires_at,
  rotated_at: r.rotated_at,
  previous_prefix: r.previous_prefix,
  previous_valid_until: r.previous_valid_until,
  budget: {
    per_day: r.budget_per_day_nanos === null ? null : amountOfNanos(r.budget_per_day_nanos),
    per_month: r.budget_per_month_nanos === null ? null : amountOfNanos(r.budget_per_month_nanos),
    warn_percent: r.budget_warn_percent,
  },
  // what the key spent depends on the appliance's pricing and the clock: the routes add it (routes/gateway.ts)
  spend: null,
});

/** Where the previous page ended, in the list's order: its last key's place (creation, name, idleness or expiry) and seq. */
const AfterCreated = z.strictObject({ c: z.string(), s: z.number().int() });
const AfterName = z.strictObject({ n: z.string(), s: z.number().int() });
const AfterIdle = z.strictObject({ i: z.number().int(), s: z.number().int() });
const AfterExpiry = z.strictObject({ e: z.string(), s: z.number().int() });
/** A cursor of the version that paged the list in memory: the last key's id. */
const AfterId = z.strictObject({ k: z.string() });
const Cursor = z.union([AfterCreated, AfterName, AfterIdle, AfterExpiry, AfterId]);
type Cursor = z.infer<typeof Cursor>;

/** Above any character a name can hold: a prefix's range ends just before it (UTF-8 compares as code points). */
const ABOVE_ANY_CHARACTER = String.fromCodePoint(0x10ffff);

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** The epoch minute a time falls in, as idle_since_minute counts (migration 16). */
const minuteOf = (ms: number) => Math.floor(ms / MINUTE_MS);

/** The list's filters, paging and count, as the contract parses them (KeyListQuery). */
export type KeyListRequest = Pick<KeyListQuery, 'limit'> & Partial<Omit<KeyListQuery, 'limit'>>;

/**
 * The list's orders, each kept by an index (migrations 15 and 16): `where` is the cursor's place in
 * it, `cursor` the place of a page's last key.
 */
interface Order {
  kind: 'c' | 'n' | 'i' | 'e';
  /** the index that keeps the order, named for the planner, which left to itself may sort a million keys */
  index?: string;
  by: string;
  after: string;
  cursor: (row: KeyRow & { seq: number; idle_since_minute: number }) => Cursor;
}
const ORDERS: Record<Order['kind'], Order> = {
  c: {
    kind: 'c',
    by: 'k.created_at DESC, k.seq DESC',
    after: '(k.created_at < @c OR (k.created_at = @c AND k.seq < @s))',
    cursor: (r) => ({ c: r.created_at, s: r.seq }),
  },
  n: {
    kind: 'n',
    index: 'gateway_keys_name',
    by: 'k.name COLLATE NOCASE, k.seq',
    after: '(k.name COLLATE NOCASE > @n OR (k.name COLLATE NOCASE = @n AND k.seq > @s))',
    cursor: (r) => ({ n: r.name, s: r.seq }),
  },
  i: {
    kind: 'i',
    index: 'gateway_keys_idle',
    by: 'k.idle_since_minute, k.seq',
    after: '(k.idle_since_minute > @i OR (k.idle_since_minute = @i AND k.seq > @s))',
    cursor: (r) => ({ i: r.idle_since_minute, s: r.seq }),
  },
  e: {
    kind: 'e',
    index: 'gateway_keys_expiry',
    by: 'k.expires_at, k.seq',
    after: '(k.expires_at > @e OR (k.expires_at = @e AND k.seq > @s))',
    cursor: (r) => ({ e: r.expires_at!, s: r.seq }),
  },
};

/**
 * The order a request's filters page in: by name when searching by a name's beginning, soonest
 * expiry first when asking what expires, longest idle first when asking what is unused, else
 * newest first (the never-used keys' or the budgeted keys' own index when asking for those). Each is an index's order,
 * so a page reads only its own rows. Asked for one id, the planner looks that key up by its id.
 */
function orderOf(q: KeyListRequest): Order {
  const order =
    q.name !== undefined
      ? ORDERS.n
      : q.expires_within_days !== undefined
        ? ORDERS.e
        : q.unused_days !== undefined
          ? ORDERS.i
          : q.never_used !== undefined
            ? { ...ORDERS.c, index: 'gateway_keys_never_used' }
            : q.has_budget !== undefined
              ? { ...ORDERS.c, index: 'gateway_keys_budget' }
              : ORDERS.c;
  return q.id === undefined ? order : { ...order, index: undefined };
}

/**
 * A page of keys, read from an index in the list's order (migrations 15 and 16) and never more rows
 * than the page. Filters combine. The cursor is the last key's place in the order, so a key created
 * or revoked between two pages neither repeats nor hides another. With `count`, the answer also
 * says how many keys pass the filters over every page, up to KEY_COUNT_CAP.
 */
export function listGatewayKeys(
  db: Db,
  q: KeyListRequest,
  nowMs = Date.now(),
): Page<GatewayKey> & { total?: number; total_capped?: boolean } {
  const order = orderOf(q);
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (q.id !== undefined) {
    where.push('k.id = @id');
    params.id = q.id;
  }
  if (q.status !== undefined) {
    where.push('k.status = @status');
    params.status = q.status;
  }
  if (q.name !== undefined) {
    where.push('k.name COLLATE NOCASE >= @from AND k.name COLLATE NOCASE < @to');
    params.from = q.name;
    params.to = q.name + ABOVE_ANY_CHARACTER;
  }
  if (q.unused_days !== undefined || q.never_used !== undefined || q.expires_within_days !== undefined)
    where.push("k.status = 'active'");
  if (q.unused_days !== undefined) {
    where.push('k.idle_since_minute <= @idle_until');
    params.idle_until = minuteOf(nowMs - q.unused_days * DAY_MS);
  }
  // the terms of the never-used keys' partial index, as it states them (migration 16)
  if (q.never_used !== undefined) where.push('k.last_used_at IS NULL');
  // the terms of the budgeted keys' partial index, as it states them (migration 17)
  if (q.has_budget !== undefined) where.push(HAS_BUDGET);
  if (q.expires_within_days !== undefined) {
    where.push('k.expires_at > @now AND k.expires_at <= @expires_by');
    params.now = iso(nowMs);
    params.expires_by = iso(nowMs + q.expires_within_days * DAY_MS);
  }
  const from = `gateway_keys k${order.index ? ` INDEXED BY ${order.index}` : ''}`;
  const filtered = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const counted =
    q.count === undefined
      ? undefined
      : (db
          .prepare(`SELECT COUNT(*) FROM (SELECT 1 FROM ${from} ${filtered} LIMIT @cap)`)
          .pluck()
          .get({ ...params, cap: KEY_COUNT_CAP + 1 }) as number);
  if (q.after !== undefined) {
    Object.assign(params, cursorPlace(db, decodeCursor(q.after, Cursor), order.kind));
    where.push(order.after);
  }
  const rows = db
    .prepare(
      `SELECT ${COLUMNS}, k.seq AS seq, k.idle_since_minute AS idle_since_minute FROM ${from}
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order.by} LIMIT @limit`,
    )
    .all({ ...params, limit: q.limit + 1 }) as (KeyRow & { seq: number; idle_since_minute: number })[];
  const has_more = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    data: page.map(toKey),
    has_more,
    next_cursor: has_more && last ? encodeCursor(order.cursor(last)) : null,
    ...(counted === undefined
      ? {}
      : { total: Math.min(counted, KEY_COUNT_CAP), total_capped: counted > KEY_COUNT_CAP }),
  };
}

/** A key with a money budget: the partial index gateway_keys_budget's terms (migration 17). */
const HAS_BUDGET = '(k.budget_per_day_nanos IS NOT NULL OR k.budget_per_month_nanos IS NOT NULL)';

const ORDER_WORDS: Record<Order['kind'], string> = {
  c: 'newest first',
  n: 'by name',
  i: 'by idleness',
  e: 'by expiry',
};

/** A cursor's place in the list's order, as the order's query parameters; an id cursor (an older server's) is looked up. */
function cursorPlace(db: Db, cursor: Cursor, kind: Order['kind']): Record<string, unknown> {
  if ('k' in cursor) {
    const row = db
      .prepare(
        'SELECT created_at AS c, name AS n, idle_since_minute AS i, expires_at AS e, seq AS s FROM gateway_keys WHERE id = ?',
      )
      .get(cursor.k) as { c: string; n: string; i: number; e: string | null; s: number } | undefined;
    if (!row) throw badRequest('invalid cursor', [{ name: 'after', reason: 'the key it points at no longer exists' }]);
    return row;
  }
  const cursorKind = (Object.keys(cursor) as string[]).find((k) => k !== 's') as Order['kind'];
  if (cursorKind !== kind)
    throw badRequest('invalid cursor', [
      {
        name: 'after',
        reason: `a cursor of the list ${ORDER_WORDS[cursorKind]}, not ${ORDER_WORDS[kind]}; ask again from the first page`,
      },
    ]);
  return cursor;
}

/** Every key, oldest first, for the demo's seeding (a demo holds a few dozen). */
export const allGatewayKeys = (db: Db): GatewayKey[] =>
  (db.prepare(`SELECT ${COLUMNS} FROM gateway_keys k ORDER BY k.seq`).all() as KeyRow[]).map(toKey);

function getGatewayKey(db: Db, id: string): GatewayKey | undefined {
  const row = db.prepare(`SELECT ${COLUMNS} FROM gateway_keys k WHERE k.id = ?`).get(id) as KeyRow | undefined;
  return row && toKey(row);
}

const mustGet = (db: Db, id: string): GatewayKey => {
  const key = getGatewayKey(db, id);
  if (!key) throw notFound(`no gateway key ${id}`);
  return key;
};

/**
 * The key a presented secret belongs to, active or revoked, or undefined (unknown or malformed).
 * `replaced`: the secret is one a rotation replaced, working until `validUntilMs`.
 */
export function findKeyBySecret(
  db: Db,
  secret: string,
): { key: GatewayKey; replaced?: { validUntilMs: number } } | undefined {
  if (!secret.startsWith(GATEWAY_KEY_PREFIX)) return undefined;
  const hash = hashSecret(secret);
  const row = db.prepare(`SELECT ${COLUMNS} FROM gateway_keys k WHERE k.secret_hash = ?`).get(hash) as
    KeyRow | undefined;
  if (row) return { key: toKey(row) };
  const old = db
    .prepare('SELECT key_id, valid_until_ms FROM gateway_key_replaced_secrets WHERE secret_hash = ?')
    .get(hash) as { key_id: string; valid_until_ms: number } | undefined;
  const key = old && getGatewayKey(db, old.key_id);
  return key && { key, replaced: { validUntilMs: old.valid_until_ms } };
}

/** Whether the key has expired at `nowMs` (its expiry is the first moment it is refused). */
export const hasExpired = (key: Pick<GatewayKey, 'expires_at'>, nowMs: number): boolean =>
  key.expires_at !== null && Date.parse(key.expires_at) <= nowMs;

/** An expiry as a request gives it (RFC 3339, any offset), in UTC; it must be in the future. */
function expiryOf(expiresAt: string | null | undefined, nowMs: number): string | null {
  if (expiresAt === null || expiresAt === undefined) return null;
  const ms = Date.parse(expiresAt);
  if (!(ms > nowMs))
    throw badRequest(`expires_at must be in the future (now ${iso(nowMs)})`, [
      { name: 'expires_at', reason: 'must be in the future' },
    ]);
  return iso(ms);
}

const newSecret = () => GATEWAY_KEY_PREFIX + randomBytes(32).toString('base64url');

export interface NewGatewayKey {
  name: string;
  quota?: Partial<Quota>;
  /** RFC 3339, in the future; null or absent: the key does not expire */
  expires_at?: string | null;
  created_by: string;
  /** money budgets (the caller checked that the appliance has pricing) */
  budget?: SetKeyBudget;
  /** for seeded history; defaults to now */
  created_at_ms?: number;
}

/**
 * Creates a key and returns its secret, which exists nowhere else afterwards. An active key with
 * the same name (case-insensitive) is a 409: two live keys an operator cannot tell apart invite
 * revoking the wrong one. A revoked key's name may be reused.
 */
export function createGatewayKey(db: Db, input: NewGatewayKey): { key: GatewayKey; secret: string } {
  const clash = db
    .prepare("SELECT id FROM gateway_keys WHERE status = 'active' AND name = ? COLLATE NOCASE")
    .get(input.name) as { id: string } | undefined;
  if (clash)
    throw conflict(
      `an active gateway key named "${input.name}" already exists (${clash.id}); revoke it or choose another name`,
    );
  const expiresAt = expiryOf(input.expires_at, input.created_at_ms ?? Date.now());
  const secret = newSecret();
  const quota: Quota = { ...UNLIMITED, ...stripUndefined(input.quota ?? {}) };
  const id = newId('key');
  const createdAt = iso(input.created_at_ms);
  const budget = budgetColumns(input.budget);
  db.prepare(
    `INSERT INTO gateway_keys (id, name, status, prefix, secret_hash, created_at, created_by, requests_per_minute, tokens_per_minute, tokens_per_day, quota_changed_at, expires_at,
      budget_per_day_nanos, budget_per_month_nanos, budget_warn_percent)
    VALUES (?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    input.name,
    secret.slice(0, DISPLAY_PREFIX_LENGTH),
    hashSecret(secret),
    createdAt,
    input.created_by,
    quota.requests_per_minute,
    quota.tokens_per_minute,
    quota.tokens_per_day,
    createdAt,
    expiresAt,
    budget.per_day_nanos,
    budget.per_month_nanos,
    budget.warn_percent,
  );
  return { key: mustGet(db, id), secret };
}

const stripUndefined = (q: Partial<Quota>): Partial<Quota> =>
  Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as Partial<Quota>;

/** Terminal and idempotent: revoking a revoked key returns it unchanged. */
export function revokeGatewayKey(db: Db, id: string, atMs?: number): { key: GatewayKey; alreadyRevoked: boolean } {
  const before = mustGet(db, id);
  if (before.status === 'revoked') return { key: before, alreadyRevoked: true };
  db.prepare("UPDATE gateway_keys SET status = 'revoked', revoked_at = ? WHERE id = ?").run(iso(atMs), id);
  return { key: mustGet(db, id), alreadyRevoked: false };
}

/**
 * Replaces the whole quota of an active key; a revoked key's quota is frozen (409). The change's
 * time is kept only when a value changes: setting the same quota again does not restart the count
 * of rejections since the last change.
 */
export function setGatewayKeyQuota(db: Db, id: string, quota: Quota, atMs?: number): { key: GatewayKey; from: Quota } {
  const before = mustGet(db, id);
  if (before.status === 'revoked') throw conflict(`gateway key ${id} is revoked; its quota can no longer change`);
  const changed = (Object.keys(quota) as (keyof Quota)[]).some((k) => quota[k] !== before.quota[k]);
  db.prepare(
    'UPDATE gateway_keys SET requests_per_minute = ?, tokens_per_minute = ?, tokens_per_day = ?, quota_changed_at = ? WHERE id = ?',
  ).run(
    quota.requests_per_minute,
    quota.tokens_per_minute,
    quota.tokens_per_day,
    changed ? iso(atMs) : before.quota_changed_at,
    id,
  );
  return { key: mustGet(db, id), from: before.quota };
}

/** Sets or clears a key's expiry; a revoked key's is frozen (409). An expired key may be given a later one. */
export function setGatewayKeyExpiry(
  db: Db,
  id: string,
  expiresAt: string | null,
  nowMs = Date.now(),
): { key: GatewayKey; from: string | null } {
  const before = mustGet(db, id);
  if (before.status === 'revoked') throw conflict(`gateway key ${id} is revoked; its expiry can no longer change`);
  db.prepare('UPDATE gateway_keys SET expires_at = ? WHERE id = ?').run(expiryOf(expiresAt, nowMs), id);
  return { key: mustGet(db, id), from: before.expires_at };
}

/** A budget as a request sets it, in the columns' nano-units; none given: no budget. */
function budgetColumns(b: SetKeyBudget | undefined): {
  per_day_nanos: number | null;
  per_month_nanos: number | null;
  warn_percent: number;
} {
  const nanos = (amount: number | null | undefined) =>
    amount === null || amount === undefined ? null : nanosOfAmount(amount);
  return {
    per_day_nanos: nanos(b?.per_day),
    per_month_nanos: nanos(b?.per_month),
    warn_percent: b?.warn_percent ?? DEFAULT_BUDGET_WARN_PERCENT,
  };
}

/**
 * Sets or clears (null) a key's day and month budgets and its warning share; a revoked key's are
 * frozen (409). The front door reads them in its transaction, so the next call is held to them.
 */
export function setGatewayKeyBudget(
  db: Db,
  id: string,
  budget: SetKeyBudget,
): { key: GatewayKey; from: GatewayKey['budget'] } {
  const before = mustGet(db, id);
  if (before.status === 'revoked') throw conflict(`gateway key ${id} is revoked; its budget can no longer change`);
  const b = budgetColumns(budget);
  db.prepare(
    'UPDATE gateway_keys SET budget_per_day_nanos = ?, budget_per_month_nanos = ?, budget_warn_percent = ? WHERE id = ?',
  ).run(b.per_day_nanos, b.per_month_nanos, b.warn_percent, id);
  return { key: mustGet(db, id), from: before.budget };
}

export interface Rotation {
  key: GatewayKey;
  /** the new secret: returned once, stored nowhere */
  secret: string;
  /** the replaced secret's prefix, and until when it still works */
  previousPrefix: string;
  previousValidUntil: string;
  /** the prefixes of older replaced secrets whose grace this rotation ended */
  endedGraces: string[];
}

/**
 * Gives a key a new secret; id, name, quota, expiry and usage stay. The replaced secret keeps
 * working for `graceSeconds` (0: refused at once). Only the newest replaced secret may be in a
 * grace: a second rotation during one ends it, so a key never has more than two working secrets.
 */
export function rotateGatewayKey(db: Db, id: string, graceSeconds: number, nowMs = Date.now()): Rotation {
  const before = mustGet(db, id);
  if (before.status === 'revoked') throw conflict(`gateway key ${id} is revoked; it cannot be rotated`);
  if (hasExpired(before, nowMs))
    throw conflict(`gateway key ${id} expired at ${before.expires_at}; set a later expiry or clear it first`);
  const endedGraces = db
    .prepare('SELECT prefix FROM gateway_key_replaced_secrets WHERE key_id = ? AND valid_until_ms > ? ORDER BY seq')
    .pluck()
    .all(id, nowMs) as string[];
  db.prepare(
    'UPDATE gateway_key_replaced_secrets SET valid_until = ?, valid_until_ms = ? WHERE key_id = ? AND valid_until_ms > ?',
  ).run(iso(nowMs), nowMs, id, nowMs);
  const current = db.prepare('SELECT secret_hash, prefix FROM gateway_keys WHERE id = ?').get(id) as {
    secret_hash: string;
    prefix: string;
  };
  const validUntilMs = nowMs + graceSeconds * 1000;
  db.prepare(
    `INSERT INTO gateway_key_replaced_secrets (key_id, secret_hash, prefix, replaced_at, valid_until, valid_until_ms)
    VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(id, current.secret_hash, current.prefix, iso(nowMs), iso(validUntilMs), validUntilMs);
  const secret = newSecret();
  db.prepare('UPDATE gateway_keys SET secret_hash = ?, prefix = ?, rotated_at = ? WHERE id = ?').run(
    hashSecret(secret),
    secret.slice(0, DISPLAY_PREFIX_LENGTH),
    iso(nowMs),
    id,
  );
  return {
    key: mustGet(db, id),
    secret,
    previousPrefix: current.prefix,
    previousValidUntil: iso(validUntilMs),
    endedGraces,
  };
}

/**
 * Records a use of the key. The indexed idleness (idle_since_minute) follows by a trigger
 * (migration 16), written only when the use's minute differs from the one it holds.
 */
export const touchGatewayKey = (db: Db, id: string, atMs: number): void => {
  db.prepare('UPDATE gateway_keys SET last_used_at = ? WHERE id = ?').run(iso(atMs), id);
};

/** A key's name alone (a spend summary names its page's keys): none of the list's per-key sums. */
export const gatewayKeyName = (db: Db, id: string): string | null =>
  (db.prepare('SELECT name FROM gateway_keys WHERE id = ?').pluck().get(id) as string | undefined) ?? null;

/**
 * The name, status, quota and its last change of each of the keys given (a usage answer's), and for
 * those in `refusing` whose quota was changed after their creation the refusals since that change: one
 * query, not one a key.
 */
export function usageKeysOf(db: Db, ids: string[], refusing: ReadonlySet<string>): Map<string, UsageKey> {
  if (!ids.length) return new Map();
  // the refusals since the quota change only for the keys refused in the range whose quota was changed:
  // the others would each cost a read of the refused minutes, for a figure nobody asks of them
  const rows = db
    .prepare(
      `SELECT k.id, k.name, k.status, k.requests_per_minute, k.tokens_per_minute, k.tokens_per_day, k.quota_changed_at,
        CASE WHEN k.quota_changed_at <> k.created_at AND k.id IN (SELECT value FROM json_each(?))
          THEN ${REJECTED_SINCE_SUM} END AS rejected_since_quota_change
      FROM gateway_keys k WHERE k.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify([...refusing]), JSON.stringify(ids)) as (Pick<
    KeyRow,
    'id' | 'name' | 'status' | 'requests_per_minute' | 'tokens_per_minute' | 'tokens_per_day' | 'quota_changed_at'
  > & { rejected_since_quota_change: number | null })[];
  return new Map(
    rows.map((r) => [
      r.id,
      {
        name: r.name,
        status: r.status,
        quota: {
          requests_per_minute: r.requests_per_minute,
          tokens_per_minute: r.tokens_per_minute,
          tokens_per_day: r.tokens_per_day,
        },
        quota_changed_at: r.quota_changed_at,
        rejected_since_quota_change: r.rejected_since_quota_change,
      },
    ]),
  );
}
