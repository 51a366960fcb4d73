/** A triage line, how bad it is, and the words its windows and counts are said in. */
import type { ScreenLink } from '../kit/screen-api.js';
import { thousands } from '../../text/thousands.js';

/** crit: broken now; warn: failing in part or about to; unknown: could not be read; ok: fine (headline figures). */
export type Severity = 'crit' | 'warn' | 'unknown' | 'ok';

export interface TriageLine {
  /** stable per thing: `connector:conn_crm`, `agent-failures:hr-assistant` */
  key: string;
  severity: Severity;
  what: string;
  reason: string;
  /** how many over `window` (null for a state, e.g. a connector in error) */
  count: number | null;
  /** "now", "last hour", "last 24 h", "last 7 d", "today" (the UTC day, as the gateway counts a day's tokens) */
  window: string;
  /** the screen and filter that show the cause */
  link: ScreenLink | null;
}

/** A key or an agent is near a limit at this share of it. */
export const NEAR = 0.8;
export const LAST_HOUR = 'last hour';
export const LAST_DAY = 'last 24 h';
export const LAST_WEEK = 'last 7 d';
export const TODAY = 'today';
export const NOW = 'now';

export const n = thousands;
export const plural = (count: number, one: string, many = `${one}s`) => `${n(count)} ${count === 1 ? one : many}`;
