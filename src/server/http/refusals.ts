import { isIPv6 } from 'node:net';
import type { Logger } from 'pino';
import type { Db } from '../db/open.js';
import type { RefusalReason } from '../auth.js';
import { recordAudit } from '../audit.js';
import { backgroundTasks } from '../background.js';
import { iso, newId } from '../ids.js';

/**
 * Requests to the admin API refused as unauthenticated (401: no token, a malformed, unknown,
 * expired or revoked one), audited without letting a flood of them fill the disk: counted in
 * memory per source address and minute, and written as at most one `auth.refused` entry per source
 * and minute once the minute has ended (and at shutdown). Past MAX_SOURCES_PER_MINUTE sources in a
 * minute, the rest share one entry with source_ip null. Nothing of a credential is kept.
 */
const REFUSED_ACTION = 'auth.refused';
/** The background task (background.ts) that writes them: failing on /deployment from a minute lost until one is written. */
const REFUSED_TASK = 'auth-refused-audit';

/**
 * Sources with an entry of their own in one minute; more (a distributed flood) share one: at most
 * 101 entries a minute, whatever comes. An IPv6 source is its /64, as one host may hold the whole
 * network and change its address at every request.
 */
export const MAX_SOURCES_PER_MINUTE = 100;
/** The shared entry counts how many distinct sources it holds up to this many (memory is bounded). */
const MAX_COUNTED_SOURCES = 100_000;

const MINUTE_MS = 60_000;
/** After a minute ends, before its entries are written: requests in flight at the turn are counted in it. */
const AFTER_MINUTE_MS = 50;

interface Tally {
  count: number;
  first: number;
  last: number;
  reasons: Partial<Record<RefusalReason, number>>;
}

interface Minute {
  start: number;
  sources: Map<string | null, Tally>;
  /** the sources beyond the cap, together */
  rest: Tally | null;
  restSources: Set<string | null>;
}

const tally = (at: number): Tally => ({ count: 0, first: at, last: at, reasons: {} });

function add(t: Tally, reason: RefusalReason, at: number): void {
  t.count++;
  t.first = Math.min(t.first, at);
  t.last = Math.max(t.last, at);
  t.reasons[reason] = (t.reasons[reason] ?? 0) + 1;
}

export class RefusalLog {
  private minute: Minute | null = null;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    /** the wall clock the minutes are read from (a test's own) */
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one refused request from `source`. Never throws: a refusal must be answered whatever happens here. */
  note(address: string | null, reason: RefusalReason): void {
    if (this.closed) return;
    try {
      const source = sourceOf(address);
      const at = this.now();
      const start = at - (at % MINUTE_MS);
      if (this.minute && this.minute.start !== start) this.flush(true);
      const m = (this.minute ??= { start, sources: new Map(), rest: null, restSources: new Set() });
      let t = m.sources.get(source);
      if (!t && m.sources.size >= MAX_SOURCES_PER_MINUTE) {
        if (m.restSources.size < MAX_COUNTED_SOURCES) m.restSources.add(source);
        t = m.rest ??= tally(at);
      } else if (!t) m.sources.set(source, (t = tally(at)));
      add(t, reason, at);
      this.arm();
    } catch (err) {
      this.log.error({ err }, 'could not count a refused request');
    }
  }

  /**
   * Writes the entries of the counted minute once it has ended (or the clock was set back before
   * it); with `all`, whatever the time (a request of another minute, shutdown). Never throws: a
   * write that fails (a full disk) is logged with what it would have said, and dropped.
   */
  flush(all = false): void {
    const m = this.minute;
    const now = this.now();
    if (!m || (!all && now >= m.start && now < m.start + MINUTE_MS)) return;
    this.minute = null;
    const entries = [...m.sources].map(([source, t]) => ({ source, details: detailsOf(t) }));
    if (m.rest) entries.push({ source: null, details: { ...detailsOf(m.rest), sources: m.restSources.size } });
    try {
      this.db.transaction(() => {
        for (const { source, details } of entries)
          recordAudit(this.db, {
            actor: { subject: 'anonymous', role: null },
            action: REFUSED_ACTION,
            target: { type: 'session', id: null, name: null },
            outcome: 'denied',
            status: 401,
            request_id: newId('req'),
            source_ip: source,
            details,
            at_ms: now,
          });
      })();
      backgroundTasks(this.db).succeeded(REFUSED_TASK);
    } catch (err) {
      this.log.error(
        { err, refused: entries.map((e) => ({ source_ip: e.source, ...e.details })) },
        'could not audit the requests refused as unauthenticated in the minute that ended',
      );
      // logged above with the counts, which are kept nowhere else
      backgroundTasks(this.db).failed(
        REFUSED_TASK,
        err,
        "not retried: that minute's counts are in the server log; the next minute's are written as usual",
        { log: false },
      );
    }
  }

  /** Stops the timer and writes what is counted: before the database closes. */
  close(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.flush(true);
    this.closed = true;
  }

  /** A timer for the end of the counted minute; unref'd, so that it never keeps a process up. */
  private arm(): void {
    if (this.timer || !this.minute) return;
    const wait = Math.min(MINUTE_MS, Math.max(0, this.minute.start + MINUTE_MS - this.now())) + AFTER_MINUTE_MS;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.closed) return;
      // flush never throws; a tick before the minute's end (a timer fired early) arms again
      this.flush();
      this.arm();
    }, wait);
    this.timer.unref();
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
