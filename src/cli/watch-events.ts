/**
 * What `appliance-admin watch` reports, as a line for a person (a tmux pane, a journal) and as a
 * JSON object for a program (--json, --exec's stdin). Every text the appliance sent is sanitized
 * here, before it is printed or handed on.
 */
import type { TriageChange } from '../dashboard/triage/changes.js';
import type { Severity } from '../dashboard/triage/line.js';
import { sanitize, sanitizeDeep } from '../text/sanitize.js';

export type WatchEvent =
  /** a line appeared, cleared or changed severity; `whileBlind`: it happened while the appliance could not be read */
  | { type: 'change'; at: number; change: TriageChange; whileBlind: boolean }
  /** the appliance could not be read (said once, until it can be again) */
  | { type: 'unreachable'; at: number; reason: string; lastRead: number | null }
  /** it can be read again: blind since `blindFrom` (the last read, or the start), `changes` follow */
  | { type: 'reachable'; at: number; blindFrom: number; changes: number; firstRead: boolean };

const BADGE: Record<Severity, string> = { crit: 'CRIT', warn: 'WARN', unknown: 'N/A', ok: 'OK' };

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** 42 s, 3 min 5 s, 2 h 4 min */
function lasted(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

const countText = (c: TriageChange) => (c.line.count === null ? c.line.window : `${c.line.count} · ${c.line.window}`);

/** One line per event, sanitized: the appliance's words cannot steer the terminal or fake a line. */
export function eventText(e: WatchEvent): string {
  const at = iso(e.at);
  if (e.type === 'unreachable') {
    const last = e.lastRead === null ? 'not read since the watch started' : `last read ${iso(e.lastRead)}`;
    return sanitize(`${at} appliance not readable: ${e.reason}; ${last}; trying again with backoff`, 2000);
  }
  if (e.type === 'reachable') {
    const since = e.changes
      ? `${e.changes} change${e.changes === 1 ? '' : 's'} since, against the last state seen:`
      : 'no change since, against the last state seen';
    const text = e.firstRead
      ? `${at} appliance read at last, after ${lasted(e.at - e.blindFrom)} of trying`
      : `${at} appliance readable again after ${lasted(e.at - e.blindFrom)} blind (from ${iso(e.blindFrom)}, the last read); ${since}`;
    return sanitize(text, 2000);
  }
  const c = e.change;
  const l = c.line;
  const blind = e.whileBlind ? ' [while blind]' : '';
  const text =
    c.kind === 'cleared'
      ? `${at} OK cleared (was ${BADGE[c.was!]}): ${l.what}${blind}`
      : c.kind === 'new'
        ? `${at} ${BADGE[c.now]} new: ${l.what}: ${l.reason} · ${countText(c)}${blind}`
        : `${at} ${BADGE[c.now]} was ${BADGE[c.was!]}: ${l.what}: ${l.reason} · ${countText(c)}${blind}`;
  return sanitize(text, 2000);
}

/** What an event is, in a few words, for a message about it: `new CRIT Connector Cloud CRM`. */
export function eventLabel(e: WatchEvent): string {
  if (e.type !== 'change') return `the ${e.type} event`;
  const c = e.change;
  return sanitize(`${c.kind} ${BADGE[c.kind === 'cleared' ? c.was! : c.now]} ${c.line.what}`, 200);
}

/** One JSON object per event (`event`: new, cleared, changed, unreachable, reachable), its strings sanitized. */
export function eventJson(e: WatchEvent, appliance: string): Record<string, unknown> {
  const base = { at: iso(e.at), appliance };
  if (e.type === 'unreachable')
    return sanitizeDeep({
      event: 'unreachable',
      ...base,
      reason: e.reason,
      last_read: e.lastRead === null ? null : iso(e.lastRead),
    });
  if (e.type === 'reachable')
    return {
      event: 'reachable',
      ...base,
      blind_from: iso(e.blindFrom),
      blind_seconds: Math.round((e.at - e.blindFrom) / 1000),
      first_read: e.firstRead,
      changes: e.changes,
    };
  const { line, kind, was, now } = e.change;
  return sanitizeDeep({
    event: kind,
    ...base,
    severity: now,
    was,
    key: line.key,
    what: line.what,
    reason: line.reason,
    count: line.count,
    window: line.window,
    link: line.link,
    while_blind: e.whileBlind,
  });
}

/** A note for stderr (the watch's own state, --exec's failures): any outside words in it pass the sanitizer. */
export const noteLine = (line: string) => `appliance-admin watch: ${sanitize(line, 2000)}`;
