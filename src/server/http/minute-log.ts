import type { Logger } from 'pino';
import type { Db } from '../db/sqlite-driver.js';
import { recordAudit, type AuditRecord } from '../audit.js';
import { backgroundTasks } from '../background.js';

/**
 * Requests the audit trail records as counts rather than one by one (refused as unauthenticated:
 * refusals.ts; over the rate limit: rate-limit.ts), so that a flood of them cannot fill the disk:
 * counted in memory per key (a source, a caller) and minute, and written as at most one entry per key
 * and minute once the minute has ended (and at shutdown). Past `maxKeys` keys in a minute, the rest
 * share one entry.
 */

/** The shared entry counts how many distinct keys it holds up to this many (memory is bounded). */
const MAX_COUNTED_KEYS = 100_000;

const MINUTE_MS = 60_000;
/** After a minute ends, before its entries are written: requests in flight at the turn are counted in it. */
const AFTER_MINUTE_MS = 50;

export interface Minute<T> {
  start: number;
  /** each key's own tally, at most `maxKeys` of them */
  keys: Map<string | null, T>;
  /** the keys beyond the cap, together */
  rest: T | null;
  /** which keys the shared tally holds, up to MAX_COUNTED_KEYS */
  restKeys: Set<string | null>;
}

export interface MinuteLogSpec<T> {
  /** keys with an entry of their own in one minute; more share one */
  maxKeys: number;
  /** an empty tally, first counted at `at` */
  tally(at: number): T;
  /** the entries of a minute that ended, written at `now` */
  records(m: Minute<T>, now: number): AuditRecord[];
  /** what the server log says when they cannot be written, with each record as `item` gives it under `field` */
  lost: { message: string; field: string; item(r: AuditRecord): Record<string, unknown> };
  /** the background task whose failures /deployment shows (background.ts) */
  task: string;
}

export class MinuteLog<T> {
  private minute: Minute<T> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    /** the wall clock the minutes are read from (a test's own) */
    private readonly now: () => number,
    private readonly spec: MinuteLogSpec<T>,
  ) {}

  /**
   * Counts one request under `key` (`count` adds it to the key's tally). Never throws: the request
   * must be answered whatever happens here.
   */
  note(key: string | null, count: (t: T, at: number) => void): void {
    if (this.closed) return;
    try {
      const at = this.now();
      const start = at - (at % MINUTE_MS);
      if (this.minute && this.minute.start !== start) this.flush(true);
      const m = (this.minute ??= { start, keys: new Map(), rest: null, restKeys: new Set() });
      let t = m.keys.get(key);
      if (!t && m.keys.size >= this.spec.maxKeys) {
        if (m.restKeys.size < MAX_COUNTED_KEYS) m.restKeys.add(key);
        t = m.rest ??= this.spec.tally(at);
      } else if (!t) m.keys.set(key, (t = this.spec.tally(at)));
      count(t, at);
      this.arm();
    } catch (err) {
      this.log.error({ err }, `could not count a request for the audit trail (${this.spec.lost.field})`);
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
    let records: AuditRecord[] = [];
    try {
      records = this.spec.records(m, now);
      this.db.transaction(() => {
        for (const r of records) recordAudit(this.db, r);
      })();
      backgroundTasks(this.db).succeeded(this.spec.task);
    } catch (err) {
      const { message, field, item } = this.spec.lost;
      // runs from a timer: nothing here may throw out of it (a record `item` cannot read, a logger that fails)
      try {
        this.log.error({ err, [field]: records.map(item) }, message);
      } catch {
        // the failure is still recorded for /deployment below
      }
      // logged above with the counts, which are kept nowhere else
      backgroundTasks(this.db).failed(
        this.spec.task,
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
