import type { Deployment } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { iso } from '../ids.js';
import { thousands } from '../../text/thousands.js';
import { forwarderOf } from './forwarder.js';
import { lagAfter } from './position.js';

type Component = Deployment['components'][number];
export type ForwardLag = NonNullable<Deployment['audit_forward']>;

const age = (ms: number) =>
  ms < 1000
    ? 'under a second'
    : ms < 120_000
      ? `${Math.round(ms / 1000)} s`
      : ms < 7_200_000
        ? `${Math.round(ms / 60_000)} min`
        : `${Math.round(ms / 3_600_000)} h`;

/** How far the copy off the host is behind the trail, or null when forwarding is off. */
export function forwardLag(db: Db, nowMs = Date.now()): ForwardLag | null {
  const f = forwarderOf(db);
  if (!f) return null;
  const s = f.state();
  const lag = lagAfter(db, s.forwarded);
  return {
    target: s.target.url,
    forwarded_seq: s.forwarded,
    head_seq: lag.head,
    behind: lag.behind,
    oldest_unforwarded_at: lag.oldestMs === null ? null : iso(lag.oldestMs),
    oldest_unforwarded_age_ms: lag.oldestMs === null ? null : Math.max(0, nowMs - lag.oldestMs),
    last_taken_at: s.lastTakenAt,
    error: s.failure?.error ?? null,
    failing_since: s.failure?.since ?? null,
  };
}

/**
 * The `audit-forward` component: degraded when the copy is behind by the configured number of
 * entries or time, or the receiver has failed for that long; its message starts with the lag, which
 * is what the overview's line shows.
 */
export function forwardComponent(db: Db, nowMs = Date.now()): Component | null {
  const f = forwarderOf(db);
  const lag = forwardLag(db, nowMs);
  if (!f || !lag) return null;
  const t = f.state().target;
  const waited = lag.oldest_unforwarded_age_ms ?? 0;
  const failingMs = lag.failing_since ? nowMs - Date.parse(lag.failing_since) : 0;
  const behind =
    lag.behind === 0
      ? `up to date (#${thousands(lag.forwarded_seq)})`
      : `${thousands(lag.behind)} entr${lag.behind === 1 ? 'y' : 'ies'} behind, the oldest unforwarded ${age(waited)} old`;
  const failing = lag.error ? `; failing since ${lag.failing_since}: ${lag.error}` : '';
  const late = lag.behind >= t.warnBehindEntries || waited >= t.warnAfterMs || failingMs >= t.warnAfterMs;
  return {
    name: 'audit-forward',
    status: late ? 'degraded' : 'healthy',
    version: null,
    message: `${behind} (copy to ${lag.target})${failing}`,
  };
}
