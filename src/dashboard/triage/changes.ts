/**
 * What changed on the board between two reads of it: a CRIT, WARN or N/A line that appeared, one
 * that cleared, one whose severity changed. Shared by `appliance-admin watch` (a line per change)
 * and the dashboard's notice of a new CRIT, so both call the same thing a change.
 *
 * A line can leave the board because what it stood for is fixed, or because the resource it was
 * read from could not be read this time (the connectors' answer failed: no connector line). The
 * second is not "cleared": a line missing while a resource is unread that was read when the line
 * was last seen is held (kept in the memory, not reported) until that resource is read again.
 */
import type { Severity, TriageLine } from './line.js';

/** The severities a change is reported for; `ok` lines are headline figures, not problems. */
const WATCHED: ReadonlySet<Severity> = new Set(['crit', 'warn', 'unknown']);

type ChangeKind = 'new' | 'cleared' | 'changed';

export interface TriageChange {
  kind: ChangeKind;
  /** the line as read now; for `cleared`, as it was last seen */
  line: TriageLine;
  /** its severity before (null: it was not on the board) */
  was: Severity | null;
  /** its severity now ('ok' once cleared) */
  now: Severity;
}

interface Seen {
  line: TriageLine;
  /** the resources not read when the line was last seen */
  unread: ReadonlySet<string>;
}

/** The problem lines last seen, by key: what the next read is compared with. */
export type BoardMemory = ReadonlyMap<string, Seen>;

/** The resource a source line says was not read (`source:connectors`), else null. */
const unreadSource = (l: TriageLine): string | null =>
  l.key.startsWith('source:') && l.severity === 'unknown' ? l.key.slice('source:'.length) : null;

/**
 * The changes from `memory` (null: nothing seen yet, so every problem line is new) to `lines`,
 * worst first, and the memory to compare the next read with.
 */
export function boardChanges(
  memory: BoardMemory | null,
  lines: readonly TriageLine[],
): { changes: TriageChange[]; memory: BoardMemory } {
  const unread = new Set(lines.map(unreadSource).filter((s): s is string => s !== null));
  const next = new Map<string, Seen>();
  const changes: TriageChange[] = [];
  const now = new Map(lines.filter((l) => WATCHED.has(l.severity)).map((l) => [l.key, l]));
  for (const [key, line] of now) {
    next.set(key, { line, unread });
    const before = memory?.get(key)?.line.severity ?? null;
    if (before === null) changes.push({ kind: 'new', line, was: null, now: line.severity });
    else if (before !== line.severity) changes.push({ kind: 'changed', line, was: before, now: line.severity });
  }
  for (const [key, seen] of memory ?? []) {
    if (now.has(key)) continue;
    // a resource read then is not read now: the line may be missing only because of that
    const blindSince = [...unread].some((s) => !seen.unread.has(s));
    if (blindSince && unreadSource(seen.line) === null) next.set(key, seen);
    else changes.push({ kind: 'cleared', line: seen.line, was: seen.line.severity, now: 'ok' });
  }
  const rank = (c: TriageChange) => ORDER[c.kind === 'cleared' ? c.was! : c.now];
  return { changes: changes.sort((a, b) => rank(a) - rank(b)), memory: next };
}

const ORDER: Record<Severity, number> = { crit: 0, warn: 1, unknown: 2, ok: 3 };
