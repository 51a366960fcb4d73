import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Role } from '../../contract/index.js';
import type { AuditRecord } from '../audit.js';
import { RolelessToken, type Authenticator, type Principal } from '../auth.js';
import type { ServerConfig } from '../config.js';
import type { Db } from '../db/sqlite-driver.js';
import { ApiError } from '../errors.js';
import { iso, newId } from '../ids.js';
import { MinuteLog, type Minute } from './minute-log.js';

/**
 * The per-caller limit on requests that write the audit trail (docs/operations.md, "Limits"): every
 * change and every attempt at one (denied or failed), every export, the seal, a settings write. Each
 * takes a token from its caller's bucket (the authenticated subject's), which holds `burst` and
 * refills at `per_second`; with none left the request is answered 429 with Retry-After before any
 * work is done or any entry written. A 429 takes a token too, down to a debt of `burst`: a client
 * that ignores Retry-After stays refused, and one that waits is let through, after at most
 * (burst + 1) / per_second seconds. Reads that write nothing never come here: a dashboard polls freely.
 *
 * The 429s are not audited one by one: they are counted per caller and minute and written once the
 * minute has ended as one `rate.limited` entry each (minute-log.ts), at most
 * MAX_LIMITED_PER_MINUTE + 1 a minute.
 */

const LIMITED_ACTION = 'rate.limited';

/** Callers whose buckets are kept; past it the least recently seen is dropped (memory is bounded). */
const MAX_TRACKED_CALLERS = 10_000;
/** Callers with a rate.limited entry of their own in one minute; more share one. */
export const MAX_LIMITED_PER_MINUTE = 100;

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets by caller, in the order last used (a Map keeps insertion order). */
export class Buckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    private readonly now: () => number,
    private readonly maxTracked = MAX_TRACKED_CALLERS,
  ) {}

  /**
   * Takes one token of `who`'s bucket for a request: 0 when it had one (the request goes on), else the
   * whole seconds until it will have one again, the refused request's token taken too.
   */
  take(who: string): number {
    const now = this.now();
    const tokens = this.tokensAt(this.buckets.get(who), now) - 1;
    const allowed = tokens >= 0;
    const left = allowed ? tokens : Math.max(tokens, -this.burst);
    this.buckets.delete(who);
    this.buckets.set(who, { tokens: left, at: now });
    this.drop(now);
    return allowed ? 0 : Math.ceil((1 - left) / this.perSecond);
  }

  /** How many callers are tracked (for tests). */
  get size(): number {
    return this.buckets.size;
  }

  private tokensAt(b: Bucket | undefined, now: number): number {
    if (!b) return this.burst;
    // a clock set back refills nothing, and takes nothing back
    return Math.min(this.burst, b.tokens + (Math.max(0, now - b.at) / 1000) * this.perSecond);
  }

  /** Drops the buckets full again (no different from none) from the least recently used on, and any past the cap. */
  private drop(now: number): void {
    for (const [who, b] of this.buckets) {
      if (this.buckets.size <= this.maxTracked && this.tokensAt(b, now) < this.burst) break;
      this.buckets.delete(who);
    }
  }
}

interface Tally {
  role: Role | null;
  source: string | null;
  count: number;
  first: number;
  last: number;
  actions: Record<string, number>;
}

function records(m: Minute<Tally>, now: number): AuditRecord[] {
  const entries = [...m.keys].map(([subject, t]) => ({
    actor: { subject: subject ?? 'unknown', role: t.role },
    source: t.source,
    details: detailsOf(t),
  }));
  if (m.rest)
    entries.push({
      actor: { subject: 'several', role: null },
      source: null,
      details: { ...detailsOf(m.rest), callers: m.restKeys.size },
    });
  return entries.map(({ actor, source, details }) => ({
    actor,
    action: LIMITED_ACTION,
    target: { type: 'session', id: null, name: null },
    outcome: 'denied',
    status: 429,
    request_id: newId('req'),
    source_ip: source,
    details,
    at_ms: now,
  }));
}

function detailsOf(t: Tally): Record<string, unknown> {
  return { count: t.count, first_at: iso(t.first), last_at: iso(t.last), actions: t.actions };
}

/** The limit, its buckets and the count of what it refused, for one server. */
export class WriteLimiter {
  private readonly buckets: Buckets;
  private readonly limited: MinuteLog<Tally>;

  constructor(
    db: Db,
    log: Logger,
    private readonly limit: ServerConfig['rate_limit'],
    private readonly authenticate: Authenticator,
    now: () => number = Date.now,
  ) {
    this.buckets = new Buckets(limit.burst, limit.per_second, now);
    this.limited = new MinuteLog(db, log, now, {
      maxKeys: MAX_LIMITED_PER_MINUTE,
      tally: (at) => ({ role: null, source: null, count: 0, first: at, last: at, actions: {} }),
      records,
      lost: {
        message: 'could not audit the requests refused for their rate in the minute that ended',
        field: 'limited',
        item: (r) => ({ subject: r.actor.subject, ...r.details }),
      },
      task: 'rate-limited-audit',
    });
  }

  /**
   * Authenticates a request that will write the audit trail under `action`, and takes its caller's
   * token: 429 past the limit, before anything else. A verified token that grants no role names its
   * caller too, and its attempt is audited as denied: it is counted the same way. A request without a
   * valid token (401) has no caller, and is counted per source instead (refusals.ts).
   */
  readonly admit = async (req: FastifyRequest, action: string): Promise<Principal> => {
    let principal: Principal;
    try {
      principal = await this.authenticate(req.headers.authorization);
    } catch (err) {
      if (err instanceof RolelessToken) this.charge(req, { subject: err.subject, role: null }, action);
      throw err;
    }
    this.charge(req, principal, action);
    return principal;
  };

  /** Writes the minute counted so far: before the database closes. */
  close(): void {
    this.limited.close();
  }

  private charge(req: FastifyRequest, who: { subject: string; role: Role | null }, action: string): void {
    const wait = this.buckets.take(who.subject);
    if (wait === 0) return;
    req.throttled = true;
    this.limited.note(who.subject, (t, at) => {
      if (t.count === 0) {
        t.role = who.role;
        t.source = req.ip ?? null;
      }
      t.count++;
      t.first = Math.min(t.first, at);
      t.last = Math.max(t.last, at);
      t.actions[action] = (t.actions[action] ?? 0) + 1;
    });
    const { burst, per_second } = this.limit;
    throw new ApiError(
      429,
      `too many requests that write the audit trail: ${burst} at once, then ${per_second} a second, per caller; ` +
        `retry after ${wait} s`,
      { headers: { 'Retry-After': String(wait) } },
    );
  }
}
