/**
 * The board as one state, in the monitoring-plugins convention (Nagios, Icinga, Zabbix, monit, a
 * cron job's `|| mail`): OK 0, WARNING 1, CRITICAL 2, UNKNOWN 3. A CRIT or WARN that was read is
 * said before a part that could not be read: it is a fact for its owner, and the summary says
 * what was not read. UNKNOWN is a board with no problem read and something not read.
 */
import type { TriageLine } from './line.js';

export type BoardState = 'OK' | 'WARNING' | 'CRITICAL' | 'UNKNOWN';

export const EXIT_CODE: Record<BoardState, number> = { OK: 0, WARNING: 1, CRITICAL: 2, UNKNOWN: 3 };

export interface BoardStatus {
  state: BoardState;
  crit: number;
  warn: number;
  /** resources not read */
  unknown: number;
  /** headline lines (fine) */
  ok: number;
}

export function boardStatus(lines: readonly TriageLine[]): BoardStatus {
  const by = (s: TriageLine['severity']) => lines.filter((l) => l.severity === s).length;
  const [crit, warn, unknown, ok] = [by('crit'), by('warn'), by('unknown'), by('ok')];
  const state: BoardState = crit ? 'CRITICAL' : warn ? 'WARNING' : unknown ? 'UNKNOWN' : 'OK';
  return { state, crit, warn, unknown, ok };
}

/**
 * The plugin's first line: `APPLIANCE CRITICAL - 2 critical, 1 warning | crit=2;;;0 warn=1;;;0 …`,
 * the performance data after the bar (label=value;warn;crit;min). `total`: the resources read for it.
 */
export function statusLine(s: BoardStatus, total: number): string {
  const parts = [
    s.crit ? `${s.crit} critical` : '',
    s.warn ? `${s.warn} warning${s.warn === 1 ? '' : 's'}` : '',
    s.unknown ? `${s.unknown} of ${total} sources not read` : '',
  ].filter(Boolean);
  const blind = s.unknown >= total && !s.crit && !s.warn;
  const words = blind
    ? `could not read the appliance: none of its ${total} sources read`
    : parts.length
      ? parts.join(', ')
      : 'nothing needs attention';
  const perf = `crit=${s.crit};;;0 warn=${s.warn};;;0 unknown=${s.unknown};;;0;${total}`;
  return `APPLIANCE ${s.state} - ${words} | ${perf}`;
}

/** The plugin's line when the board could not be read at all: `why` says what failed. */
export const unreadableLine = (why: string): string => `APPLIANCE UNKNOWN - could not read the appliance: ${why}`;
