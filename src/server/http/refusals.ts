import { isIPv6 } from 'node:net';
import type { Logger } from 'pino';
import type { Db } from '../db/sqlite-driver.js';
import type { RefusalReason } from '../auth.js';
import type { AuditRecord } from '../audit.js';
import { iso, newId } from '../ids.js';
import { MinuteLog, type Minute } from './minute-log.js';

/**
 * Requests to the admin API refused as unauthenticated (401: no token, a malformed, unknown,
 * expired or revoked one), audited without letting a flood of them fill the disk: counted in
 * memory per source address and minute, and written as at most one `auth.refused` entry per source
 * and minute once the minute has ended (and at shutdown). Past MAX_SOURCES_PER_MINUTE sources in a
 * minute, the rest share one entry with source_ip null. Nothing of a credential is kept.
 */
const REFUSED_ACTION = 'auth.refused';

/**
 * Sources with an entry of their own in one minute; more (a distributed flood) share one: at most
 * 101 entries a minute, whatever comes. An IPv6 source is its /64, as one host may hold the whole
 * network and change its address at every request.
 */
export const MAX_SOURCES_PER_MINUTE = 100;

interface Tally {
  count: number;
  first: number;
  last: number;
  reasons: Partial<Record<RefusalReason, number>>;
}

const tally = (at: number): Tally => ({ count: 0, first: at, last: at, reasons: {} });

function add(t: Tally, reason: RefusalReason, at: number): void {
  t.count++;
  t.first = Math.min(t.first, at);
  t.last = Math.max(t.last, at);
  t.reasons[reason] = (t.reasons[reason] ?? 0) + 1;
}

function records(m: Minute<Tally>, now: number): AuditRecord[] {
  const entries = [...m.keys].map(([source, t]) => ({ source, details: detailsOf(t) }));
  if (m.rest) entries.push({ source: null, details: { ...detailsOf(m.rest), sources: m.restKeys.size } });
  return entries.map(({ source, details }) => ({
    actor: { subject: 'anonymous', role: null },
    action: REFUSED_ACTION,
    target: { type: 'session', id: null, name: null },
    outcome: 'denied',
    status: 401,
    request_id: newId('req'),
    source_ip: source,
    details,
    at_ms: now,
  }));
}

export class RefusalLog {
  private readonly minutes: MinuteLog<Tally>;

  constructor(db: Db, log: Logger, now: () => number = Date.now) {
    this.minutes = new MinuteLog(db, log, now, {
      maxKeys: MAX_SOURCES_PER_MINUTE,
      tally,
      records,
      lost: {
        message: 'could not audit the requests refused as unauthenticated in the minute that ended',
        field: 'refused',
        item: (r) => ({ source_ip: r.source_ip, ...r.details }),
      },
      task: 'auth-refused-audit',
    });
  }

  /** Counts one refused request from `source`. Never throws: a refusal must be answered whatever happens here. */
  note(address: string | null, reason: RefusalReason): void {
    let source: string | null;
    try {
      source = sourceOf(address);
    } catch {
      source = null;
    }
    this.minutes.note(source, (t, at) => add(t, reason, at));
  }

  /** Writes the counted minute once it has ended; with `all`, whatever the time (minute-log.ts). */
  flush(all = false): void {
    this.minutes.flush(all);
  }

  /** Stops the timer and writes what is counted: before the database closes. */
  close(): void {
    this.minutes.close();
  }
}

/** The source a refusal is counted under: an IPv4 address as it is (a mapped one unmapped), an IPv6 one's /64. */
export function sourceOf(address: string | null): string | null {
  if (address === null || !isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  const [head, tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

function detailsOf(t: Tally): Record<string, unknown> {
  return { count: t.count, first_at: iso(t.first), last_at: iso(t.last), reasons: t.reasons };
}
