/**
 * What the board reads, and a line for each resource not read (yet): loading, unreadable, or
 * failing to refresh while its last answer is used.
 */
import { NOW, type TriageLine } from './line.js';

/** What the overview reads, by resource id (the ids of overview.tsx's resources). */
export const TRIAGE_SOURCES = {
  deployment: 'Deployment status',
  connectors: 'Connectors',
  usage: 'Gateway usage, last hour',
  /** a day's or a week's; the last hour's are in `usage`, which the board then reads for them */
  rejections: 'Gateway rejections, chosen window',
  usageToday: 'Gateway usage, today',
  /** the active keys with a money budget (the list's has_budget), each with its spend */
  keys: 'Gateway keys with a budget',
  keysExpiring: 'Gateway keys expiring soon',
  keysUnused: 'Unused gateway keys',
  failuresByError: 'Agent failures by error',
  failuresByTool: 'Agent failures by tool',
  budgetUsage: 'Agent budget use',
  models: 'Models',
  routing: 'Model routing',
  denied: 'Denied attempts',
  authRefused: 'Requests without a valid token',
  auditNewest: 'Audit trail, newest page',
  auditCheckpoint: 'Audit checkpoint',
} as const;
export type TriageSource = keyof typeof TRIAGE_SOURCES;

/**
 * One resource as the board sees it: not there yet, its answer (`staleError`: the last poll
 * failed, this is the answer before), or why it could not be read.
 */
type TriageResource =
  | { state: 'loading' }
  /** `served`: the answer as it came off the wire, for the audit chain's check (ResourceEntry `served`) */
  | { state: 'ok'; data: unknown; served?: unknown; staleError?: string }
  | { state: 'error'; error: string };
export type TriageInput = Partial<Record<TriageSource, TriageResource>>;

/** The sources the board was given (one it did not ask for is not "loading"). */
export const sourcesIn = (input: TriageInput): TriageSource[] => Object.keys(input) as TriageSource[];

/** A resource's answer, once it arrived (also while a later poll fails). */
export function answerOf<T>(input: TriageInput, id: TriageSource): T | undefined {
  const r = input[id];
  return r?.state === 'ok' && r.data !== undefined && r.data !== null ? (r.data as T) : undefined;
}

/** A resource's answer as served, for the audit chain's check. */
export function servedOf(input: TriageInput, id: TriageSource): unknown {
  const r = input[id];
  return r?.state === 'ok' ? r.served : undefined;
}

/** A line for each resource that is not read, or whose last poll failed. */
export function sourceLines(input: TriageInput): TriageLine[] {
  return sourcesIn(input).flatMap((id): TriageLine[] => {
    const r = input[id];
    if (r?.state === 'ok' && !r.staleError) return [];
    const what = TRIAGE_SOURCES[id];
    const reason =
      r?.state === 'ok'
        ? `failed to refresh, the lines above use its last answer: ${r.staleError}`
        : r?.state === 'error'
          ? `failed to load: ${r.error}`
          : 'loading…';
    return [{ key: `source:${id}`, severity: 'unknown', what, reason, count: null, window: NOW, link: null }];
  });
}

/**
 * How much of the appliance the board read: nothing yet (every source still loading), nothing at
 * all (no source answered, at least one failed: a refused token, an appliance that is down), or
 * something. With nothing read, "nothing needs attention" would be reassurance without grounds.
 */
export function readingOf(input: TriageInput): 'loading' | 'unreadable' | 'read' {
  const states = sourcesIn(input).map((id) => input[id]?.state ?? 'loading');
  if (states.some((s) => s === 'ok')) return 'read';
  return states.some((s) => s === 'error') ? 'unreadable' : 'loading';
}
